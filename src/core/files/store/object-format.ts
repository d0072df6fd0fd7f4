// What an object is, apart from where it is stored: its kind, its hash (a tree's is salted so a blob can never pass
// for a tree), the flags a pack keeps beside its bytes, and the check that stored bytes are the object they claim.
import { createHash } from 'node:crypto';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';

export type ObjectKind = 'blob' | 'tree';

/** The stored bytes are deflated (raw deflate). */
export const F_DEFLATED = 1;
/** The object is a tree (a folder listing), not a blob. */
export const F_TREE = 2;
/**
 * The stored bytes are raw deflate with a preset dictionary: the F_DICTIONARY entry of the same pack (always set
 * together with F_DEFLATED). Only compacted packs hold such objects (store-compaction.ts).
 */
export const F_DICT = 4;
/**
 * Not an object: the deflate dictionary of its pack, stored raw, under its own salted hash (hashDictionary), so no
 * lookup of a blob or tree ever finds it.
 */
export const F_DICTIONARY = 8;
/** Objects smaller than this are stored as they are: a deflate stream costs more than it saves on them. */
export const MIN_DEFLATE = 64;
/**
 * How a bulk snapshot's blobs are deflated when they are (pack-writer.ts, BULK_OBJECTS): Huffman coding only, still
 * raw deflate, so every version reads them; compaction recompresses them soon after.
 */
export const HUFFMAN_ONLY = { level: 1, strategy: constants.Z_HUFFMAN_ONLY };

/** zlib's smallest output chunk (Z_MIN_CHUNK) and its default (Z_DEFAULT_CHUNK). */
const MIN_CHUNK = 64;
const DEFAULT_CHUNK = 16 * 1024;

/**
 * `deflateRawSync(data, opts)` with its output buffer sized to `data` rather than zlib's 16 KiB: what it returns is a
 * view of that buffer, so every small object of a snapshot held 16 KiB (a pack keeps the objects it writes until they
 * are written), garbage that a quiet checkpoint service's V8 frees only at its next full collection (issue 26: ~0.6 MB
 * per warm snapshot of 10 files, most of the service's growth between collections). The size is deflate's worst case
 * for such data (a few bytes per stored block) with room to spare; output past it only goes into a second chunk.
 */
export function deflateRawSized(data: Buffer, opts: { level: number; strategy?: number }): Buffer {
  const chunkSize = Math.min(DEFAULT_CHUNK, Math.max(MIN_CHUNK, data.length + (data.length >>> 3) + MIN_CHUNK));
  return deflateRawSync(data, { ...opts, chunkSize });
}

/**
 * A bulk snapshot's blob as its pack stores it: as it is, unless `compress` (the pack's writes are behind: see
 * PackWriter.compressBulk), then Huffman-coded when that makes it smaller.
 */
export function bulkStored(data: Buffer, compress: boolean): { stored: Buffer; deflated: boolean } {
  const z = !compress || data.length < MIN_DEFLATE ? undefined : deflateRawSized(data, HUFFMAN_ONLY);
  return z && z.length < data.length ? { stored: z, deflated: true } : { stored: data, deflated: false };
}

/** Objects are capped so sizes fit the index; maxFileSize is clamped to this. */
export const MAX_OBJECT_SIZE = 0xffff_ffff;

export class StoreCorruptError extends Error {}

export function hashObject(kind: ObjectKind, data: Buffer): string {
  const h = createHash('sha256');
  if (kind === 'tree') h.update('tree\0');
  return h.update(data).digest('hex');
}

export function hashDictionary(data: Buffer): string {
  return createHash('sha256').update('dict\0').update(data).digest('hex');
}

/** 1 at the UTF-16 code units of 0-9 and a-f. */
const HEX_DIGIT = new Uint8Array(0x10000);
for (const c of '0123456789abcdef') HEX_DIGIT[c.charCodeAt(0)] = 1;

/** 64 lowercase hex digits. A loop, not a regular expression: reading a timeline or the trees of a preview checks
 *  tens of thousands of these, and the regular expression's run was the largest part of that read. A table, not
 *  comparisons: whether a hash's next digit is a number or a letter is a coin toss, and the mispredicted branches of
 *  the comparisons took twice the time of the whole check without them. */
export function isObjectHash(s: unknown): s is string {
  if (typeof s !== 'string' || s.length !== 64) return false;
  let hex = 1;
  for (let i = 0; i < 64; i++) hex &= HEX_DIGIT[s.charCodeAt(i)]!;
  return hex === 1;
}

export function kindOf(flags: number): ObjectKind {
  return flags & F_TREE ? 'tree' : 'blob';
}

/**
 * The stored bytes of an object inflate (when deflated, with `dict` when F_DICT says so) to its raw size and hash to
 * its hash. A dictionary entry verifies against its own hash.
 */
export function verifyStored(e: { hash: string; rawSize: number; flags: number }, stored: Buffer, dict?: Buffer): boolean {
  if (e.flags & F_DICTIONARY) return stored.length === e.rawSize && hashDictionary(stored) === e.hash;
  let data: Buffer;
  try {
    data = inflateStored(e, stored, dict);
  } catch {
    return false;
  }
  return data.length === e.rawSize && hashObject(kindOf(e.flags), data) === e.hash;
}

/** The raw bytes of a stored object (throws when they do not inflate, or need a dictionary that is not given). */
export function inflateStored(e: { rawSize: number; flags: number }, stored: Buffer, dict?: Buffer): Buffer {
  if (!(e.flags & F_DEFLATED)) return stored;
  if (e.flags & F_DICT && !dict) throw new Error('the dictionary of its pack is missing');
  const opts = { maxOutputLength: Math.max(e.rawSize, 1) };
  return inflateRawSync(stored, e.flags & F_DICT ? { ...opts, dictionary: dict } : opts);
}
