// What an object is, apart from where it is stored: its kind, its hash (a tree's is salted so a blob can never pass
// for a tree), the flags a pack keeps beside its bytes, and the check that stored bytes are the object they claim.
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';

export type ObjectKind = 'blob' | 'tree';

/** The stored bytes are deflated (raw deflate). */
export const F_DEFLATED = 1;
/** The object is a tree (a folder listing), not a blob. */
export const F_TREE = 2;
/** Objects are capped so sizes fit the index; maxFileSize is clamped to this. */
export const MAX_OBJECT_SIZE = 0xffff_ffff;

export class StoreCorruptError extends Error {}

export function hashObject(kind: ObjectKind, data: Buffer): string {
  const h = createHash('sha256');
  if (kind === 'tree') h.update('tree\0');
  return h.update(data).digest('hex');
}

const HEX64 = /^[0-9a-f]{64}$/;
export function isObjectHash(s: unknown): s is string {
  return typeof s === 'string' && HEX64.test(s);
}

export function kindOf(flags: number): ObjectKind {
  return flags & F_TREE ? 'tree' : 'blob';
}

/** The stored bytes of an object inflate (when deflated) to its raw size and hash to its hash. */
export function verifyStored(e: { hash: string; rawSize: number; flags: number }, stored: Buffer): boolean {
  let data = stored;
  if (e.flags & F_DEFLATED) {
    try {
      data = inflateRawSync(stored, { maxOutputLength: Math.max(e.rawSize, 1) });
    } catch {
      return false;
    }
  }
  return data.length === e.rawSize && hashObject(kindOf(e.flags), data) === e.hash;
}
