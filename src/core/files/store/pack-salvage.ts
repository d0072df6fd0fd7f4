// Reading what is left of a damaged pack: every object that still verifies, found by walking the self-describing pack
// (pack-format.ts) and through whatever its old index still lists (a version 1 pack has only its index).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { F_DICTIONARY, hashDictionary, isObjectHash, StoreCorruptError, verifyStored } from './object-format';
import { OBJ_HEADER, PACK_MAGIC, decodeObjectHeader } from './pack-format';
import { entryAt, salvageableEntries, type IndexEntry } from './pack-index';

export interface SalvagedPack {
  /** The objects that verify, with their stored bytes. */
  good: { entry: IndexEntry; stored: Buffer }[];
  /** Hashes listed (in the pack or its index) whose bytes do not verify. */
  lost: string[];
  /** Every object the pack and index describe was found intact. */
  complete: boolean;
  /** The pack has the version 2 marker (its index can be rebuilt from it alone). */
  selfDescribing: boolean;
  /** A compacted pack's dictionary, when a copy of it verifies (its F_DICT objects verify only with it). */
  dictionary?: Buffer;
}

export function readAt(fd: number, pos: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, pos + done);
    if (n === 0) throw new StoreCorruptError('pack is truncated');
    done += n;
  }
  return buf;
}

/** Undefined when the pack is gone (removed meanwhile). */
export function salvagePack(file: string, idxBuf: Buffer | undefined): SalvagedPack | undefined {
  return walkPack(file, idxBuf, true);
}

/**
 * What a repair of the pack would keep, without keeping it: where each object that verifies is, and what is lost. A
 * reader without the store lock reads a pack whose index cannot be trusted through this, in memory, so that it sees
 * what the locked repair then makes of it (and every object is verified again when read).
 */
export function salvagedIndex(file: string, idxBuf: Buffer | undefined): { entries: IndexEntry[]; lost: string[] } | undefined {
  const s = walkPack(file, idxBuf, false);
  return s && { entries: s.good.map((g) => g.entry), lost: s.lost };
}

const NOT_KEPT = Buffer.alloc(0);

function walkPack(file: string, idxBuf: Buffer | undefined, keepBytes: boolean): SalvagedPack | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  const good: SalvagedPack['good'] = [];
  const lost: string[] = [];
  let complete = false;
  let selfDescribing = false;
  let dictionary: Buffer | undefined;
  try {
    const size = fstatSync(fd).size;
    const head = readAt(fd, 0, Math.min(PACK_MAGIC.length, size));
    const check = (e: IndexEntry): Buffer | undefined => {
      if (e.offset + e.length > size) return undefined;
      const stored = readAt(fd, e.offset, e.length);
      if (!verifyStored(e, stored, dictionary)) return undefined;
      // written before the objects that need it and after them (pack-writer.ts); an index lists its copies wherever
      // their hash sorts, so they are looked for first (below)
      if (e.flags & F_DICTIONARY) dictionary ??= stored;
      return stored;
    };
    if (idxBuf) {
      const { readable } = salvageableEntries(idxBuf);
      for (let i = 0; i < readable && !dictionary; i++) {
        const e = entryAt(idxBuf, i);
        if (e.flags & F_DICTIONARY) check(e);
      }
    }
    // no index, or none of its copies verifies: the pack's own headers lead to them (the second comes last)
    if (!dictionary && head.equals(PACK_MAGIC)) {
      for (let at = PACK_MAGIC.length; at + OBJ_HEADER <= size && !dictionary;) {
        const e: IndexEntry = { ...decodeObjectHeader(readAt(fd, at, OBJ_HEADER)), offset: at + OBJ_HEADER };
        if (e.flags & F_DICTIONARY) check(e);
        at = e.offset + e.length;
      }
    }
    if (head.equals(PACK_MAGIC)) {
      selfDescribing = true;
      let at = PACK_MAGIC.length;
      complete = true;
      while (at < size) {
        if (at + OBJ_HEADER > size) {
          complete = false;
          break;
        }
        const h = decodeObjectHeader(readAt(fd, at, OBJ_HEADER));
        const e: IndexEntry = { ...h, offset: at + OBJ_HEADER };
        if (e.offset + e.length > size) {
          complete = false;
          break;
        }
        const stored = check(e);
        if (stored) good.push({ entry: e, stored: keepBytes ? stored : NOT_KEPT });
        else {
          lost.push(e.hash);
          complete = false;
        }
        at = e.offset + e.length;
      }
    }
    // whatever the old index still lists that the scan did not find (a version 1 pack has only its index)
    if (idxBuf) {
      const { declared, readable } = salvageableEntries(idxBuf);
      const found = new Set(good.map((g) => g.entry.hash));
      for (let i = 0; i < readable; i++) {
        const e = entryAt(idxBuf, i);
        if (found.has(e.hash) || !isObjectHash(e.hash)) continue;
        const stored = check(e);
        if (stored) {
          good.push({ entry: e, stored: keepBytes ? stored : NOT_KEPT });
          found.add(e.hash);
        } else if (!lost.includes(e.hash)) lost.push(e.hash);
      }
      if (readable < declared) complete = false;
    }
  } finally {
    closeSync(fd);
  }
  // a damaged copy of the dictionary loses nothing while another verifies (the pack is still not complete)
  const dictHash = dictionary && hashDictionary(dictionary);
  return { good, lost: lost.filter((h) => h !== dictHash), complete, selfDescribing, dictionary };
}
