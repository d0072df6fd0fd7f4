// The binary stat index: it round-trips a tree, copies untouched folders without expanding them, and refuses
// anything damaged or crafted (a refused index only costs a full scan).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { crc32 } from 'node:zlib';
import { encodeStatIndex, IndexedDir, StatIndex } from '../../../src/core/files/scan/stat-index';
import { treeTotals, type DirNode, type FileNodeState, type Node } from '../../../src/core/files/store/tree';

const KEY = 'ws\0rules\0limit';
const h = (c: string) => c.repeat(64);

function file(size: number, hashChar: string, extra: Partial<FileNodeState> = {}): FileNodeState {
  return {
    kind: 'file',
    mode: 0o644,
    size,
    mtimeMs: 1_700_000_000_123.456,
    ctimeMs: 1_700_000_001_456.789,
    ino: 4242 + size,
    dev: 2049,
    hash: h(hashChar),
    ...extra,
  };
}

function dir(children: Record<string, Node>, extra: Partial<DirNode> = {}): DirNode {
  return {
    kind: 'dir',
    mode: 0o755,
    children: new Map(Object.entries(children)),
    hash: h('d'),
    rulesKey: '',
    listedMtimeMs: 1_600_000_000_000,
    listedCtimeMs: 1_600_000_000_500,
    dirIno: 7,
    dirDev: 2049,
    ignoredHere: 0,
    listed: Object.keys(children),
    ...extra,
  };
}

function sample(): DirNode {
  return dir({
    'README.md': file(10, 'a'),
    'run.sh': file(20, 'b', { mode: 0o755 }),
    link: { kind: 'symlink', mode: 0o777, size: 5, mtimeMs: 1, ctimeMs: 2, ino: 9, dev: 2049, hash: h('c') },
    src: dir(
      { 'x.ts': file(30, 'e', { racy: true }), deep: dir({ 'y.ts': file(40, 'f') }, { hash: h('1') }) },
      { hash: h('2'), ignoredHere: 2, listed: ['x.ts', 'deep', 'too-big.bin'] },
    ),
    docs: dir({ 'é ü.md': file(50, '9') }, { hash: undefined, listedMtimeMs: undefined, listed: undefined }),
  });
}

/** A plain-object copy of a tree, expanding every indexed folder: what the index says, nothing else. */
function plain(d: DirNode): unknown {
  const children: Record<string, unknown> = {};
  for (const [name, n] of [...d.children].sort((a, b) => (a[0] < b[0] ? -1 : 1))) children[name] = n.kind === 'dir' ? plain(n) : { ...n };
  return {
    mode: d.mode,
    hash: d.hash,
    rulesKey: d.rulesKey,
    listedMtimeMs: d.listedMtimeMs,
    listedCtimeMs: d.listedCtimeMs,
    dirIno: d.dirIno,
    dirDev: d.dirDev,
    ignoredHere: d.ignoredHere,
    listed: d.listed ? [...d.listed].sort() : undefined,
    children,
  };
}

/** Recomputes the trailing CRC, as a crafted file would. */
function reseal(buf: Buffer): Buffer {
  const out = Buffer.from(buf);
  out.writeUInt32LE(crc32(out.subarray(0, out.length - 4)), out.length - 4);
  return out;
}

/** Rewrites the JSON header of an index, moving the sections after it as the format wants (and reseals it). */
function withHeader(buf: Buffer, edit: (header: { key: string; dirs: unknown[][] }) => void): Buffer {
  const align8 = (n: number) => (n + 7) & ~7;
  const [headerBytes, nameBytes, fileCount] = [buf.readUInt32LE(8), buf.readUInt32LE(12), buf.readUInt32LE(16)];
  const header = JSON.parse(buf.toString('utf8', 20, 20 + headerBytes));
  edit(header);
  const text = Buffer.from(JSON.stringify(header));
  const names = buf.subarray(20 + headerBytes, 20 + headerBytes + nameBytes);
  const rest = buf.subarray(align8(20 + headerBytes + nameBytes), buf.length - 4); // numbers and hashes
  const at = align8(20 + text.length + names.length);
  const out = Buffer.alloc(at + rest.length + 4);
  buf.copy(out, 0, 0, 20);
  out.writeUInt32LE(text.length, 8);
  text.copy(out, 20);
  names.copy(out, 20 + text.length);
  rest.copy(out, at);
  assert.equal(fileCount, out.readUInt32LE(16));
  return reseal(out);
}

test('an index round-trips a tree: names, kinds, modes, sizes, times, inodes, hashes, racy flags, listings', () => {
  const tree = sample();
  const root = StatIndex.parse(encodeStatIndex(KEY, tree), KEY).root();
  assert.deepEqual(plain(root), plain(tree));
  assert.deepEqual(treeTotals(root), treeTotals(tree));
  assert.deepEqual(treeTotals(tree), { files: 6, bytes: 155, ignored: 2 });
});

test('untouched folders are copied from the old index without being expanded; a changed one is written anew', () => {
  const bytes = encodeStatIndex(KEY, sample());
  const index = StatIndex.parse(bytes, KEY);
  assert.ok(encodeStatIndex(KEY, index.root(), index.id).equals(bytes), 'nothing looked at: the same bytes');

  const root = index.root();
  const src = root.children.get('src') as DirNode;
  const docs = root.children.get('docs') as IndexedDir;
  (src.children.get('x.ts') as FileNodeState).hash = h('7');
  src.hash = undefined;
  root.hash = undefined;
  assert.ok(docs instanceof IndexedDir && docs.untouched, 'a sibling nobody opened stays untouched');
  const again = StatIndex.parse(encodeStatIndex(KEY, root), KEY).root();
  const expected = sample();
  const esrc = expected.children.get('src') as DirNode;
  (esrc.children.get('x.ts') as FileNodeState).hash = h('7');
  esrc.hash = undefined;
  expected.hash = undefined;
  assert.deepEqual(plain(again), plain(expected));
});

test('a damaged, truncated, foreign or crafted index is refused', () => {
  const bytes = encodeStatIndex(KEY, sample());
  assert.throws(() => StatIndex.parse(bytes, 'other\0key'), /other settings/);
  assert.throws(() => StatIndex.parse(bytes.subarray(0, bytes.length - 9), KEY));
  assert.throws(() => StatIndex.parse(Buffer.alloc(0), KEY));
  for (let i = 0; i < bytes.length; i += 7) {
    const bad = Buffer.from(bytes);
    bad[i] = bad[i]! ^ 0x20;
    assert.throws(() => StatIndex.parse(bad, KEY), Error, `byte ${i} flipped`);
  }
  // crafted with a valid checksum: names that would leave their folder, or folders that do not nest
  const nameAt = bytes.indexOf('README.md');
  for (const evil of ['../x.md.', 'a/b.md..', '.git\0x.md']) {
    const bad = Buffer.from(bytes);
    bad.write(evil.padEnd(9, '.').slice(0, 9), nameAt, 'utf8');
    assert.throws(() => StatIndex.parse(reseal(bad), KEY), /bad file names/, evil);
  }
  assert.doesNotThrow(
    () =>
      StatIndex.parse(
        withHeader(bytes, () => {}),
        KEY,
      ),
    'the rewriting itself keeps a valid index',
  );
  assert.throws(
    () =>
      StatIndex.parse(
        withHeader(bytes, (hd) => (hd.dirs[1]![1] = '..')),
        KEY,
      ),
    /bad folder record/,
  );
  assert.throws(
    () =>
      StatIndex.parse(
        withHeader(bytes, (hd) => (hd.dirs[2]![0] = 2)),
        KEY,
      ),
    /bad folder record|nesting/,
  );
  assert.throws(
    () =>
      StatIndex.parse(
        withHeader(bytes, (hd) => (hd.dirs[1]![10] = 2)),
        KEY,
      ),
    /nesting/,
  );
});

test('an index kept for a long-lived tree holds no string per file: names are decoded per folder when looked at', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const FOLDERS = 40;
  const PER_FOLDER = 1000;
  const folders: Record<string, Node> = {};
  for (let d = 0; d < FOLDERS; d++) {
    const files: Record<string, Node> = {};
    for (let i = 0; i < PER_FOLDER; i++) files[`component-${d}-file-${i}.tsx`] = file(i, 'a');
    folders[`pkg${d}`] = dir(files);
  }
  const bytes = encodeStatIndex(KEY, dir(folders));
  const heapAfter = (make: () => unknown): { held: unknown; bytes: number } => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const held = make();
    gc();
    return { held, bytes: process.memoryUsage().heapUsed - before };
  };
  const kept = heapAfter(() => StatIndex.parse(bytes, KEY, false));
  const perFile = kept.bytes / (FOLDERS * PER_FOLDER);
  // a name as a string is ~40 bytes and its slot in an array 8 more; the folder records are a few hundred bytes each
  assert.ok(perFile < 10, `${perFile.toFixed(1)} bytes of heap per file`);
  const index = kept.held as StatIndex;
  assert.equal(index.dirs[3]!.name, 'pkg2');
  assert.deepEqual(index.namesOf(3).slice(0, 2), ['component-2-file-0.tsx', 'component-2-file-1.tsx']);
  assert.equal(index.allNames().length, FOLDERS * PER_FOLDER);
  assert.deepEqual(index.allNames(), StatIndex.parse(bytes, KEY).allNames(), 'decoded again, the same names as a check takes');
  const root = index.root();
  const pkg7 = root.children.get('pkg7') as DirNode;
  assert.equal(pkg7.children.size, PER_FOLDER);
  assert.equal((pkg7.children.get('component-7-file-999.tsx') as FileNodeState).size, 999);
});
