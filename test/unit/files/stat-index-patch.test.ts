// The stat index's patch (stat-index-patch.ts): what a fresh process learnt, written beside the index. It brings a
// loaded index to the tree it was made from, applies only to the index it names, and says nothing when the tree no
// longer has the index's folders and names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import { encodeStatIndex, StatIndex } from '../../../src/core/files/scan/stat-index';
import { applyStatPatch, decodeStatPatch, encodeStatPatch, statPatchFor } from '../../../src/core/files/scan/stat-index-patch';
import { hashTrees, treeTotals, type DirNode, type FileNodeState, type Node } from '../../../src/core/files/store/tree';

const KEY = 'ws\0rules\0limit';
const h = (c: string) => c.repeat(64);
const file = (size: number, c: string, extra: Partial<FileNodeState> = {}): FileNodeState => ({
  kind: 'file',
  mode: 0o644,
  size,
  mtimeMs: 1_700_000_000_123.456,
  ctimeMs: 1_700_000_000_223.456,
  ino: 1000 + size,
  dev: 2049,
  hash: h(c),
  ...extra,
});
const dir = (children: Record<string, Node>, extra: Partial<DirNode> = {}): DirNode => ({
  kind: 'dir',
  mode: 0o755,
  children: new Map(Object.entries(children)),
  rulesKey: '',
  listedMtimeMs: 1_600_000_000_000,
  listedCtimeMs: 1_600_000_000_500,
  dirIno: 7,
  dirDev: 2049,
  ignoredHere: 0,
  listed: Object.keys(children),
  ...extra,
});

function tree(): DirNode {
  const root = dir({
    'a.txt': file(1, 'a'),
    src: dir({ 'x.ts': file(2, 'b'), deep: dir({ 'y.ts': file(3, 'c'), 'z.ts': file(4, 'e') }) }),
    docs: dir({ 'r.md': file(5, 'f') }),
  });
  hashTrees(root);
  return root;
}

const loaded = () => {
  const index = StatIndex.parse(encodeStatIndex(KEY, tree()), KEY);
  return { index, root: index.root() };
};

/** What the index says, expanded, in plain objects (names sorted). */
function plain(d: DirNode): unknown {
  const children: Record<string, unknown> = {};
  for (const [name, n] of [...d.children].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (n.kind === 'dir') children[name] = plain(n);
    else {
      const { hashedAt: _, ...rest } = n as FileNodeState;
      children[name] = rest;
    }
  }
  return {
    mode: d.mode,
    hash: d.hash,
    listedMtimeMs: d.listedMtimeMs,
    listedCtimeMs: d.listedCtimeMs,
    dirIno: d.dirIno,
    dirDev: d.dirDev,
    ignoredHere: d.ignoredHere,
    totals: treeTotals(d),
    children,
  };
}

/** The loaded tree with y.ts changed (content, size, time, racy) and the folders above it re-hashed. */
function changeDeepFile(root: DirNode): void {
  const src = root.children.get('src') as DirNode;
  const deep = src.children.get('deep') as DirNode;
  Object.assign(deep.children.get('y.ts')!, { hash: h('9'), size: 30, mtimeMs: 1_800_000_000_000.5, racy: true });
  for (const d of [deep, src, root]) d.hash = undefined;
  deep.listedMtimeMs = 1_650_000_000_000;
  hashTrees(root);
}

test('a patch brings a fresh load of the same index to the tree it was made from; untouched folders stay unread', () => {
  const { index, root } = loaded();
  changeDeepFile(root);
  const patch = statPatchFor(index, root)!;
  assert.ok(patch);
  assert.deepEqual([...patch.files.keys()].length, 1);
  assert.ok(!patch.dirs.has(index.dirs.findIndex((d) => d.name === 'docs')), 'a folder nobody looked into is not in it');
  const bytes = encodeStatPatch(patch);
  const again = StatIndex.parse(encodeStatIndex(KEY, tree(), index.id), KEY);
  const decoded = decodeStatPatch(bytes, again)!;
  assert.ok(decoded);
  applyStatPatch(again, decoded);
  assert.deepEqual(plain(again.root()), plain(root));
  // the next process's patch keeps what the loaded one said, and adds to it
  const next = again.root();
  const docs = next.children.get('docs') as DirNode;
  Object.assign(docs.children.get('r.md')!, { hash: h('8'), size: 50 });
  docs.hash = undefined;
  next.hash = undefined;
  hashTrees(next);
  const cumulative = statPatchFor(again, next, decoded)!;
  assert.equal(cumulative.files.size, 2);
  const third = StatIndex.parse(encodeStatIndex(KEY, tree(), index.id), KEY);
  applyStatPatch(third, decodeStatPatch(encodeStatPatch(cumulative), third)!);
  assert.deepEqual(plain(third.root()), plain(next));
});

test('a patch is not used for another index, damaged, or with entries the index does not have', () => {
  const { index, root } = loaded();
  changeDeepFile(root);
  const bytes = encodeStatPatch(statPatchFor(index, root)!);
  assert.ok(decodeStatPatch(bytes, index));
  const other = StatIndex.parse(encodeStatIndex(KEY, tree()), KEY); // same tree, written again: another id
  assert.equal(decodeStatPatch(bytes, other), undefined);
  const noId = StatIndex.parse(encodeStatIndex(KEY, tree(), ''), KEY);
  assert.equal(decodeStatPatch(bytes, noId), undefined, 'an index from before patches takes none');
  for (let i = 0; i < bytes.length; i++) {
    const bad = Buffer.from(bytes);
    bad[i]! ^= 1;
    assert.equal(decodeStatPatch(bad, index), undefined, `byte ${i} flipped`);
  }
  assert.equal(decodeStatPatch(bytes.subarray(0, bytes.length - 1), index), undefined);
  assert.equal(decodeStatPatch(undefined, index), undefined);
  // crafted with a valid checksum: a file number past the index's files
  const crafted = Buffer.from(bytes);
  const numsAt = (32 + crafted.readUInt32LE(24) + 7) & ~7;
  crafted.writeDoubleLE(index.fileCount, numsAt);
  crafted.writeUInt32LE(crc32(crafted.subarray(0, crafted.length - 4)), crafted.length - 4);
  assert.equal(decodeStatPatch(crafted, index), undefined);
});

test('a tree whose folders or names differ from the index gets no patch', () => {
  for (const edit of [
    (r: DirNode) => (r.children.get('src') as DirNode).children.set('new.ts', file(9, '7')),
    (r: DirNode) => (r.children.get('docs') as DirNode).children.delete('r.md'),
    (r: DirNode) => r.children.set('more', dir({})),
    (r: DirNode) => (r.children.get('src') as DirNode).children.set('x.ts', dir({})),
    (r: DirNode) => ((r.children.get('docs') as DirNode).listed = ['r.md', 'skipped.bin']),
  ]) {
    const { index, root } = loaded();
    edit(root);
    root.hash = undefined;
    assert.equal(statPatchFor(index, root), undefined, String(edit));
  }
});
