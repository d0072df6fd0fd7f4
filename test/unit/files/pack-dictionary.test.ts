// A compacted pack's deflate dictionary is stored twice, first and last in the pack (pack-writer.ts): every blob of
// the pack needs it, so one damaged copy must lose nothing, wherever it is and whether or not the index survives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { F_DICTIONARY, F_TREE, StoreCorruptError } from '../../../src/core/files/store/object-format';
import { ObjectStore } from '../../../src/core/files/store/object-store';
import { OBJ_HEADER, PACK_MAGIC } from '../../../src/core/files/store/pack-format';
import { encodeIndex, entryAt, indexCount } from '../../../src/core/files/store/pack-index';
import { fingerprint, tempBase, userAnchor, writeTree } from './helpers';

const entries = (packDir: string, pack: string) => {
  const idx = readFileSync(join(packDir, pack + '.idx'));
  return Array.from({ length: indexCount(idx) ?? 0 }, (_, i) => entryAt(idx, i));
};

/** A workspace, snapshotted and compacted: the compacted pack, its two dictionary copies (in pack order). */
async function compacted(dir: string) {
  const ws = join(dir, 'ws');
  const pool = Array.from({ length: 40 }, (_, i) => `export const value${i} = compute(${i}, options.threshold ?? ${i * 7});`);
  const tree: Record<string, string> = {};
  for (let i = 0; i < 60; i++) tree[`src/f${i}.ts`] = Array.from({ length: 60 }, (_, j) => pool[(i * 7 + j * 3) % pool.length]).join('\n') + `\n// ${i}\n`;
  await writeTree(ws, tree);
  const home = join(dir, 'home');
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  await fc.snapshot('s', 'u1');
  const at1 = await fingerprint(ws);
  assert.ok(await fc.compact());
  await fc.dispose();
  const packDir = join(fc.storeDir, 'packs');
  const pack = readdirSync(packDir)
    .find((n) => n.endsWith('-c.pack'))!
    .slice(0, -5);
  const dicts = entries(packDir, pack)
    .filter((e) => e.flags & F_DICTIONARY)
    .sort((a, b) => a.offset - b.offset);
  return { ws, home, storeDir: fc.storeDir, packDir, pack, file: join(packDir, pack + '.pack'), dicts, at1 };
}

function flip(file: string, at: number): void {
  const buf = readFileSync(file);
  buf[at]! ^= 0x10;
  writeFileSync(file, buf);
}

/** Every blob and tree of the store reads back and verifies (from a fresh store: nothing cached). */
async function readAll(storeDir: string): Promise<void> {
  const s = await ObjectStore.open(storeDir);
  try {
    for (const { hash, loc } of s.table.entries()) if (!(loc.flags & F_DICTIONARY)) await s.read(hash, loc.flags & F_TREE ? 'tree' : 'blob');
  } finally {
    await s.closeHandles();
  }
}

/** The workspace changed, then rewound by a fresh checkpointer (its locked reload mends what it finds damaged). */
async function rewind(c: Awaited<ReturnType<typeof compacted>>): Promise<void> {
  await writeFile(join(c.ws, 'src/f1.ts'), 'changed\n');
  const fc = new FileCheckpointer({ workspaceRoot: c.ws, home: c.home });
  try {
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
  } finally {
    await fc.dispose();
  }
}

test('a compacted pack holds its dictionary twice: first and last in the pack, both indexed', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const c = await compacted(dir);
    assert.equal(c.dicts.length, 2);
    assert.equal(c.dicts[0]!.offset, PACK_MAGIC.length + OBJ_HEADER, 'before the objects');
    assert.equal(c.dicts[1]!.offset + c.dicts[1]!.length, readFileSync(c.file).length, 'after them');
  } finally {
    await cleanup();
  }
});

for (const which of ['first', 'last'] as const) {
  test(`a flipped byte in the ${which} copy of the dictionary loses nothing, and the pack is mended`, async () => {
    const { dir, cleanup } = await tempBase();
    try {
      const c = await compacted(dir);
      const d = c.dicts[which === 'first' ? 0 : 1]!;
      flip(c.file, d.offset + (d.length >> 1));
      await readAll(c.storeDir);
      await rewind(c);
      assert.deepEqual(await fingerprint(c.ws), c.at1);
      // the read marked the pack: it was rewritten (with two good copies again), the damaged one set aside
      assert.ok(existsSync(join(c.storeDir, 'quarantine', c.pack + '.pack')));
      const now = readdirSync(c.packDir)
        .find((n) => n.endsWith('-c.pack'))!
        .slice(0, -5);
      assert.equal(entries(c.packDir, now).filter((e) => e.flags & F_DICTIONARY).length, 2);
      await readAll(c.storeDir);
    } finally {
      await cleanup();
    }
  });

  test(`with its index lost, a pack whose ${which} dictionary copy is damaged is rebuilt from the other`, async () => {
    const { dir, cleanup } = await tempBase();
    try {
      const c = await compacted(dir);
      const d = c.dicts[which === 'first' ? 0 : 1]!;
      flip(c.file, d.offset + 1);
      unlinkSync(join(c.packDir, c.pack + '.idx'));
      await rewind(c);
      assert.deepEqual(await fingerprint(c.ws), c.at1);
      await readAll(c.storeDir);
    } finally {
      await cleanup();
    }
  });
}

test('a pack cut short inside its last dictionary copy loses nothing', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const c = await compacted(dir);
    truncateSync(c.file, c.dicts[1]!.offset + 100);
    await rewind(c);
    assert.deepEqual(await fingerprint(c.ws), c.at1);
    await readAll(c.storeDir);
  } finally {
    await cleanup();
  }
});

test('both copies damaged: the restore is refused and changes nothing', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const c = await compacted(dir);
    for (const d of c.dicts) flip(c.file, d.offset + 5);
    await writeFile(join(c.ws, 'src/f1.ts'), 'changed\n');
    const before = await fingerprint(c.ws);
    const fc = new FileCheckpointer({ workspaceRoot: c.ws, home: c.home });
    try {
      await assert.rejects(fc.rewindFiles('s', 'u1', { anchor: userAnchor }), StoreCorruptError);
    } finally {
      await fc.dispose();
    }
    assert.deepEqual(await fingerprint(c.ws), before);
  } finally {
    await cleanup();
  }
});

test('a pack written with one copy of its dictionary (before this change) still reads', async () => {
  const { dir, cleanup } = await tempBase();
  try {
    const c = await compacted(dir);
    // the same pack without its last copy, as earlier versions wrote it
    const last = c.dicts[1]!;
    truncateSync(c.file, last.offset - OBJ_HEADER);
    const kept = entries(c.packDir, c.pack).filter((e) => e.offset !== last.offset);
    writeFileSync(join(c.packDir, c.pack + '.idx'), encodeIndex(kept));
    await readAll(c.storeDir);
    await rewind(c);
    assert.deepEqual(await fingerprint(c.ws), c.at1);
    assert.ok(!existsSync(join(c.storeDir, 'quarantine')), 'nothing was taken for damage');
  } finally {
    await cleanup();
  }
});
