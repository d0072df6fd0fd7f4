// What a fresh process changed in the stat index (stat-index.ts), written beside it instead of the whole index. A
// snapshot after an agent's prompt finds a few files changed among 50,000: writing the 4 MB index again costs more
// than the rest of such a snapshot, so it is left as it is, but then every later process re-reads those files (and
// re-hashes the folders above them) until enough have piled up to write it. The patch keeps what this process
// learnt (the new entries of those files, and the records of the folders above them: tree hash, totals, listing) at
// the cost of a few KiB. It names the index it patches by that index's random id, carries everything since that
// index was written (each process writes it whole again), and only says what the index's own layout can hold: the
// same folders with the same names. A patch that does not fit (another index, damaged, other names) is not used:
// the index alone is older but still true, since every entry is checked against lstat before it is trusted.
import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { isSafeName } from '../safe-paths';
import { fileNums, IndexedDir, isFileMeta, NUMS, patchFileOf, StatIndex, type DirRecord } from './stat-index';
import { treeTotals, type DirNode, type FileNodeState, type TreeTotals } from '../store/tree';

const MAGIC = 0x50575241; // 'ARWP' little-endian
const VERSION = 2; // 2: the index's six numbers per file (ctime and device added)
/** magic, version, base id (16), folder section bytes, file count */
const HEAD = 4 + 4 + 16 + 4 + 4;
/** Per file: its number in the index, then its NUMS (6) numbers as the index stores them. A literal: this module is
 *  evaluated while stat-index.ts, which imports it, is not yet (NUMS is read only inside functions). */
const FILE_NUMS = 7;
const HASH_BYTES = 32;
const CHECK_BYTES = 4;

/** What a patch may change in a folder's record: everything but where it is and what it holds. */
export type DirPatch = Pick<DirRecord, 'mode' | 'hash' | 'rulesKey' | 'listedMtimeMs' | 'listedCtimeMs' | 'dirIno' | 'dirDev' | 'ignoredHere' | 'totals'>;

export interface StatPatch {
  /** The id of the index it applies to. */
  base: string;
  dirs: Map<number, DirPatch>;
  /** File number → its NUMS numbers and 32-byte hash. */
  files: Map<number, { nums: Float64Array; hash: Buffer }>;
}

const align8 = (n: number) => (n + 7) & ~7;
const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const HEX64 = /^[0-9a-f]{64}$/;

type PackedDir = [number, number, string | null, string | null, number | null, number | null, number, number, number, number, number | null, number | null];

export function encodeStatPatch(patch: StatPatch): Buffer {
  const dirs: PackedDir[] = [...patch.dirs].map(([d, r]) => [
    d,
    r.mode,
    r.hash ?? null,
    r.rulesKey ?? null,
    r.listedMtimeMs ?? null,
    r.dirIno ?? null,
    r.ignoredHere ?? 0,
    r.totals.files,
    r.totals.bytes,
    r.totals.ignored,
    r.listedCtimeMs ?? null,
    r.dirDev ?? null,
  ]);
  const json = Buffer.from(JSON.stringify(dirs), 'utf8');
  const files = [...patch.files];
  const numsAt = align8(HEAD + json.length);
  const hashesAt = numsAt + files.length * FILE_NUMS * 8;
  const out = Buffer.alloc(hashesAt + files.length * HASH_BYTES + CHECK_BYTES);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(VERSION, 4);
  out.write(patch.base, 8, 16, 'hex');
  out.writeUInt32LE(json.length, 24);
  out.writeUInt32LE(files.length, 28);
  json.copy(out, HEAD);
  const nums = new Float64Array(files.length * FILE_NUMS);
  files.forEach(([f, e], i) => {
    nums[i * FILE_NUMS] = f;
    nums.set(e.nums, i * FILE_NUMS + 1);
    e.hash.copy(out, hashesAt + i * HASH_BYTES);
  });
  out.set(new Uint8Array(nums.buffer), numsAt);
  out.writeUInt32LE(crc32(out.subarray(0, out.length - CHECK_BYTES)), out.length - CHECK_BYTES);
  return out;
}

/** The patch in `buf` when it was written for `index` and every value in it is one the index could hold. */
export function decodeStatPatch(buf: Buffer | undefined, index: StatIndex): StatPatch | undefined {
  try {
    if (!buf || buf.length < HEAD + CHECK_BYTES || buf.readUInt32LE(0) !== MAGIC || buf.readUInt32LE(4) !== VERSION) return undefined;
    if (crc32(buf.subarray(0, buf.length - CHECK_BYTES)) !== buf.readUInt32LE(buf.length - CHECK_BYTES)) return undefined;
    const base = buf.toString('hex', 8, 24);
    if (!index.id || base !== index.id) return undefined;
    const jsonBytes = buf.readUInt32LE(24);
    const count = buf.readUInt32LE(28);
    const numsAt = align8(HEAD + jsonBytes);
    const hashesAt = numsAt + count * FILE_NUMS * 8;
    if (buf.length !== hashesAt + count * HASH_BYTES + CHECK_BYTES) return undefined;
    const packed = JSON.parse(buf.toString('utf8', HEAD, HEAD + jsonBytes)) as unknown;
    if (!Array.isArray(packed)) return undefined;
    const dirs = new Map<number, DirPatch>();
    for (const p of packed) {
      const r = dirPatchOf(p, index.dirs.length);
      if (!r || dirs.has(r[0])) return undefined;
      dirs.set(r[0], r[1]);
    }
    const nums = new Float64Array(count * FILE_NUMS);
    new Uint8Array(nums.buffer).set(buf.subarray(numsAt, hashesAt));
    const files = new Map<number, { nums: Float64Array; hash: Buffer }>();
    const fileCount = index.fileCount;
    for (let i = 0; i < count; i++) {
      const [f, size, mtimeMs, ino, meta, ctimeMs, dev] = nums.subarray(i * FILE_NUMS, (i + 1) * FILE_NUMS);
      if (!Number.isInteger(f) || f! < 0 || f! >= fileCount || files.has(f!)) return undefined;
      if (!isNum(size) || size < 0 || !isNum(mtimeMs) || !isNum(ino) || !isFileMeta(meta!) || !isNum(ctimeMs) || !isNum(dev)) return undefined;
      files.set(f!, {
        nums: nums.slice(i * FILE_NUMS + 1, (i + 1) * FILE_NUMS),
        hash: buf.subarray(hashesAt + i * HASH_BYTES, hashesAt + (i + 1) * HASH_BYTES),
      });
    }
    return { base, dirs, files };
  } catch {
    return undefined;
  }
}

function dirPatchOf(p: unknown, dirCount: number): [number, DirPatch] | undefined {
  if (!Array.isArray(p) || p.length !== 12) return undefined;
  const [d, mode, hash, rulesKey, listed, ino, ignoredHere, files, bytes, ignored, listedCtime, dev] = p as PackedDir;
  const ok =
    Number.isInteger(d) &&
    d >= 0 &&
    d < dirCount &&
    isNum(mode) &&
    (hash === null || (typeof hash === 'string' && HEX64.test(hash))) &&
    (rulesKey === null || typeof rulesKey === 'string') &&
    (listed === null || isNum(listed)) &&
    (ino === null || isNum(ino)) &&
    (listedCtime === null || isNum(listedCtime)) &&
    (dev === null || isNum(dev)) &&
    isNum(ignoredHere) &&
    isNum(files) &&
    isNum(bytes) &&
    isNum(ignored);
  if (!ok) return undefined;
  const opt = <T>(x: T | null) => (x === null ? undefined : x);
  return [
    d,
    {
      mode,
      hash: opt(hash),
      rulesKey: opt(rulesKey),
      listedMtimeMs: opt(listed),
      listedCtimeMs: opt(listedCtime),
      dirIno: opt(ino),
      dirDev: opt(dev),
      ignoredHere,
      totals: { files, bytes, ignored },
    },
  ];
}

/** Puts the patch's folder records and file entries into the loaded index (before anything reads it). */
export function applyStatPatch(index: StatIndex, patch: StatPatch): void {
  for (const [d, r] of patch.dirs) index.dirs[d] = { ...index.dirs[d]!, ...r, totals: { ...r.totals } };
  for (const [f, e] of patch.files) {
    const at = index.fileEntry(f);
    at.nums.set(e.nums);
    e.hash.copy(at.hash);
  }
}

/**
 * The patch that brings `index` (as loaded, with `loaded` applied) to the tree `root` now is, with everything `loaded`
 * already said; undefined when `root` does not have the index's folders and file names (then only a whole new
 * index can say it). Folders nobody looked into are the index's own and are not visited.
 */
export function statPatchFor(index: StatIndex, root: DirNode, loaded?: StatPatch): StatPatch | undefined {
  const patch: StatPatch = { base: index.id, dirs: new Map(loaded?.dirs), files: new Map(loaded?.files) };
  if (!index.id) return undefined;
  const scratch = new Float64Array(NUMS);
  const scratchHash = Buffer.alloc(HASH_BYTES);
  const visit = (node: DirNode, d: number): boolean => {
    if (node instanceof IndexedDir && node.index === index && node.at === d && node.untouched) return true;
    const rec = index.dirs[d]!;
    const f0 = index.fileStart[d]!;
    const f1 = index.fileStart[d + 1]!;
    let fileKids = 0;
    for (const n of node.children.values()) if (n.kind !== 'dir') fileKids++;
    let subdirs = 0;
    for (let c = d + 1; c < rec.end; c = index.dirs[c]!.end) subdirs++;
    if (fileKids !== f1 - f0 || node.children.size - fileKids !== subdirs) return false;
    // the names listed but not kept (skipped files) are part of the record's layout, as encodeStatIndex writes them
    const extra = node.listed ? node.listed.filter((n) => !node.children.has(n)) : [];
    if (extra.length !== rec.extra.length || extra.some((n, i) => n !== rec.extra[i])) return false;
    const names = index.namesOf(d);
    const { nums, hashes } = index.sectionsOf(d, d + 1); // this folder's files only
    for (let f = f0; f < f1; f++) {
      const n = node.children.get(names[f - f0]!);
      if (!n || n.kind === 'dir') return false;
      fileNums(n as FileNodeState, scratch, 0);
      const o = (f - f0) * NUMS;
      let sameNums = true;
      for (let k = 0; k < NUMS && sameNums; k++) sameNums = scratch[k] === nums[o + k];
      // most files of a folder something changed in are the index's own nodes, untouched: no hash to decode
      if (sameNums && index.madeWithHash(n as FileNodeState, f)) continue;
      if (n.hash.length !== 64 || scratchHash.write(n.hash, 'hex') !== HASH_BYTES) return false;
      if (!sameNums || hashes.compare(scratchHash, 0, HASH_BYTES, (f - f0) * HASH_BYTES, (f - f0 + 1) * HASH_BYTES) !== 0)
        patch.files.set(f, { nums: scratch.slice(), hash: Buffer.from(scratchHash) });
    }
    for (let c = d + 1; c < rec.end; c = index.dirs[c]!.end) {
      const n = node.children.get(index.dirs[c]!.name);
      if (!n || n.kind !== 'dir' || !isSafeName(index.dirs[c]!.name) || !visit(n, c)) return false;
    }
    const r: DirPatch = {
      mode: node.mode,
      hash: node.hash,
      rulesKey: node.rulesKey,
      listedMtimeMs: node.listedMtimeMs,
      listedCtimeMs: node.listedCtimeMs,
      dirIno: node.dirIno,
      dirDev: node.dirDev,
      ignoredHere: node.ignoredHere ?? 0,
      totals: treeTotals(node),
    };
    if (!sameDir(rec, r)) patch.dirs.set(d, r);
    return true;
  };
  return visit(root, 0) ? patch : undefined;
}

function sameDir(a: DirPatch, b: DirPatch): boolean {
  const t = (x: TreeTotals) => `${x.files}/${x.bytes}/${x.ignored}`;
  return (
    a.mode === b.mode &&
    a.hash === b.hash &&
    a.rulesKey === b.rulesKey &&
    a.listedMtimeMs === b.listedMtimeMs &&
    a.listedCtimeMs === b.listedCtimeMs &&
    a.dirIno === b.dirIno &&
    a.dirDev === b.dirDev &&
    (a.ignoredHere ?? 0) === (b.ignoredHere ?? 0) &&
    t(a.totals) === t(b.totals)
  );
}

/** The stat index in `file` with the patch beside it applied, or undefined when the index is missing or damaged. */
export async function loadStatIndex(file: string, key: string): Promise<{ index: StatIndex; bytes: Buffer; patch?: StatPatch } | undefined> {
  let index: StatIndex;
  let bytes: Buffer;
  try {
    // on this thread: one 4 MB read from the page cache costs less than the thread pool's round trips
    bytes = readFileSync(file);
    index = StatIndex.parse(bytes, key);
  } catch {
    return undefined;
  }
  // what later fresh processes found changed, unless it was written for another index (or is damaged): then the
  // index alone, older but still true (every entry is checked against lstat), is what this process starts from
  const patch = index.id ? decodeStatPatch(readOrUndefined(patchFileOf(file)), index) : undefined;
  if (patch) applyStatPatch(index, patch);
  return { index, bytes, patch };
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
