// File names are bytes on Linux, and not every byte string is valid UTF-8. Such a file is snapshotted and restored
// under its own bytes, as git does (it was reported as skipped and never came back): in a folder, as a folder, as a
// symlink's target, through a fresh process's stat index and through the long-lived tracker; the tree object keeps
// the name losslessly in a flagged entry while trees written before still read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { fsPath, nameFromBytes, nameToBytes } from '../../../src/core/files/file-names';
import { decodeTree, encodeTree } from '../../../src/core/files/store/tree';
import { displayPath } from '../../../src/shared/display-path';
import { tempBase, userAnchor } from './helpers';

const linux = process.platform === 'linux';
const hash = 'ab'.repeat(32);

/** A path under `dir` whose last part is `name` (bytes), as the system takes it. */
const under = (dir: string, ...names: Buffer[]) => Buffer.concat([Buffer.from(dir + '/'), ...names.flatMap((n, i) => (i ? [Buffer.from('/'), n] : [n]))]);

/** Every entry of a folder as bytes (hex), with its type and content, sorted: what must come back exactly. */
function rawListing(dir: string | Buffer): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir, { encoding: 'buffer' })) {
    const p = Buffer.concat([typeof dir === 'string' ? Buffer.from(dir) : dir, Buffer.from('/'), name]);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) out.push(`${name.toString('hex')} -> ${readlinkSync(p, { encoding: 'buffer' }).toString('hex')}`);
    else if (st.isDirectory()) out.push(`${name.toString('hex')}/`, ...rawListing(p).map((e) => `${name.toString('hex')}/${e}`));
    else out.push(`${name.toString('hex')} ${(st.mode & 0o777).toString(8)} ${readFileSync(p).toString('hex')}`);
  }
  return out.sort();
}

test('names as bytes: every byte string round-trips, valid UTF-8 is left as text, and no escaped name is a real one', () => {
  for (const b of [
    Buffer.from([0xff]),
    Buffer.from('caf\xe9', 'latin1'),
    Buffer.from([0x61, 0xed, 0xa0, 0x80]),
    Buffer.from([0xf0, 0x9f, 0x98]),
    Buffer.from([0xc3]),
  ]) {
    const s = nameFromBytes(b);
    assert.deepEqual(nameToBytes(s), b, b.toString('hex'));
    assert.notEqual(s, b.toString('utf8'), 'never the lossy decoding');
  }
  for (const text of ['plain', 'café', '😀 \uD800\uDC80 astral', 'a\uFFFDb']) {
    assert.equal(nameFromBytes(Buffer.from(text, 'utf8')), text);
    assert.equal(fsPath(text), text);
  }
  assert.equal(displayPath(nameFromBytes(Buffer.from('caf\xe9.txt', 'latin1'))), 'caf\\xe9.txt');
});

test('a tree keeps a name that is not valid UTF-8 in a flagged entry; trees written before read as they did', () => {
  const name = nameFromBytes(Buffer.from([0x66, 0xff]));
  const data = encodeTree([
    { name, kind: 'file', mode: 0o644, hash, size: 1 },
    { name: 'plain.txt', kind: 'file', mode: 0o644, hash, size: 1 },
  ]);
  // in the order of the names as they are held ('f\udcff' before 'plain.txt')
  assert.deepEqual(JSON.parse(data.toString('utf8')), [
    ['66ff', 'f', 0o644, hash, 1, 'x'],
    ['plain.txt', 'f', 0o644, hash, 1],
  ]);
  assert.deepEqual(
    decodeTree(data).map((e) => e.name),
    [name, 'plain.txt'],
  );
  // a tree of a version before this one: the five-field entries only, read the same (and hashed the same)
  const old = Buffer.from(JSON.stringify([['plain.txt', 'f', 0o644, hash, 1]]));
  assert.deepEqual(encodeTree(decodeTree(old)), old);
  // flagged names must be what the flag says: bytes that are not UTF-8 text, no '/', no NUL
  for (const bad of ['6162', '2f2e2e', '00ff', 'zz', '']) {
    assert.throws(() => decodeTree(Buffer.from(JSON.stringify([[bad, 'f', 0o644, hash, 1, 'x']]))), /invalid/, bad);
  }
  assert.throws(() => decodeTree(Buffer.from(JSON.stringify([['66ff', 'f', 0o644, hash, 1, 'y']]))), /invalid/);
});

test('a file named with byte 0xff is snapshotted, and a rewind brings back the same bytes (name and content)', { skip: !linux }, async () => {
  const base = await tempBase('arw-bytes-');
  try {
    const ws = join(base.dir, 'ws');
    mkdirSync(join(ws, 'sub'), { recursive: true });
    const ff = Buffer.from([0xff]);
    const latin = Buffer.from('caf\xe9', 'latin1');
    writeFileSync(under(ws, ff), 'named 0xff\n');
    writeFileSync(join(ws, 'sub', 'plain.txt'), 'plain\n');
    mkdirSync(under(ws, latin));
    writeFileSync(under(ws, latin, Buffer.from('inner.txt')), 'in a folder named in Latin-1\n');
    writeFileSync(under(ws, latin, ff), 'both\n');
    symlinkSync(under(ws, latin, ff), under(ws, Buffer.from('link')));
    const before = rawListing(ws);
    const opts = { workspaceRoot: ws, home: join(base.dir, 'home') };
    const first = new FileCheckpointer(opts);
    const snap = await first.snapshot('s', 'u1', 'user-message');
    await first.dispose();
    assert.deepEqual(snap.skipped, [], 'nothing is skipped');
    assert.equal(snap.files, 5); // four files and the link

    rmSync(under(ws, ff));
    rmSync(under(ws, latin), { recursive: true });
    writeFileSync(join(ws, 'sub', 'plain.txt'), 'changed\n');
    // a fresh process as the CLI is one (it moves into each folder it can): through the stat index the first one saved
    const fresh = new FileCheckpointer({ ...opts, ownsProcessFolder: true });
    const dry = await fresh.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.equal(dry.error, undefined);
    assert.deepEqual(dry.skipped, []);
    assert.deepEqual(dry.filesChanged.map(displayPath).sort(), ['\\xff', 'caf\\xe9/\\xff', 'caf\\xe9/inner.txt', 'sub/plain.txt']);
    const real = await fresh.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(real.filesChanged, dry.filesChanged);
    await fresh.dispose();
    assert.deepEqual(rawListing(ws), before, 'the same bytes are back');
    assert.equal(readFileSync(under(ws, ff), 'utf8'), 'named 0xff\n');
  } finally {
    await base.cleanup();
  }
});

test('a change to a file with such a name, in a folder with such a name, is seen by a fresh process and by the tracker', { skip: !linux }, async () => {
  const base = await tempBase('arw-bytes-');
  try {
    const ws = join(base.dir, 'ws');
    const latin = Buffer.from('d\xe9j\xe0', 'latin1');
    const ff = Buffer.from([0x61, 0xff]);
    mkdirSync(under(ws, latin), { recursive: true });
    mkdirSync(under(ws, latin, Buffer.from('deeper')));
    writeFileSync(under(ws, latin, ff), 'one\n');
    writeFileSync(under(ws, latin, Buffer.from('deeper'), Buffer.from('x.txt')), 'x one\n');
    const old = new Date(Date.now() - 60_000);
    for (const p of [
      under(ws, latin, ff),
      under(ws, latin, Buffer.from('deeper'), Buffer.from('x.txt')),
      under(ws, latin, Buffer.from('deeper')),
      under(ws, latin),
    ])
      utimesSync(p, old, old); // not racy: the stat index's fast check trusts what it can
    const opts = { workspaceRoot: ws, home: join(base.dir, 'home') };
    for (const round of ['one', 'two']) {
      const fc = new FileCheckpointer(opts);
      await fc.snapshot('s', `u-${round}`, 'user-message');
      await fc.dispose();
      writeFileSync(under(ws, latin, ff), `${round} then more\n`);
      writeFileSync(under(ws, latin, Buffer.from('deeper'), Buffer.from('x.txt')), `x ${round} then more\n`);
    }
    const tracked = new FileCheckpointer(opts);
    tracked.notifyChanged([]); // the tracker's model from here on: only reported paths are looked at
    await tracked.snapshot('s', 'u-three', 'user-message');
    writeFileSync(under(ws, latin, ff), 'four\n');
    tracked.notifyChanged([`${nameFromBytes(latin)}/${nameFromBytes(ff)}`]);
    await tracked.snapshot('s', 'u-four', 'user-message');
    for (const [anchor, text, x] of [
      ['u-one', 'one\n', 'x one\n'],
      ['u-two', 'one then more\n', 'x one then more\n'],
      ['u-three', 'two then more\n', 'x two then more\n'],
      ['u-four', 'four\n', 'x two then more\n'],
    ] as const) {
      await tracked.rewindFiles('s', anchor, { anchor: userAnchor, overwriteUserModified: true });
      assert.equal(readFileSync(under(ws, latin, ff), 'utf8'), text, anchor);
      assert.equal(readFileSync(under(ws, latin, Buffer.from('deeper'), Buffer.from('x.txt')), 'utf8'), x, anchor);
    }
    await tracked.dispose();
  } finally {
    await base.cleanup();
  }
});
