import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { TIMELINE_FILE } from '../../../src/core/files/timeline';
import { tempBase, writeTree } from './helpers';

async function oneSession(fn: (ctx: { ws: string; fc: FileCheckpointer; file: string }) => Promise<void>): Promise<void> {
  const base = await tempBase('arw-timeline-records-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a.txt': 'a0\n' });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    await fn({ ws, fc, file: join(fc.storeDir, TIMELINE_FILE) });
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
}

const brief = (ps: { anchorId: string; root: string }[]) => ps.map((p) => `${p.anchorId} ${p.root.slice(0, 8)}`);

test("a rewind's check of its session's records reads only the records whose names the timeline does not have", async () => {
  await oneSession(async ({ ws, fc, file }) => {
    for (let i = 0; i < 6; i++) {
      await fc.snapshot('A', `u${i}`, 'user-message');
      await writeFile(join(ws, 'a.txt'), `a${i + 1}\n`);
      await fc.snapshot('A', `r${i}`, 'turn-end');
    }
    const records = (fc.timeline as unknown as { records: { readRecordFile: (s: string, n: string) => Promise<unknown> } }).records;
    const read: string[] = [];
    const real = records.readRecordFile.bind(records);
    records.readRecordFile = async (s, n) => (read.push(n), real(s, n));
    const all = await fc.timeline.pointsWithSession('A');
    assert.equal(all.length, 12);
    assert.deepEqual(read, [], 'every record is on the timeline: none read');
    // a line lost (a crash between the record's rename and the append): that record, and only it, is read
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
    await writeFile(file, lines.filter((l) => !l.includes('"u3"')).join('\n') + '\n');
    assert.deepEqual(brief(await fc.timeline.pointsWithSession('A')), brief(all));
    assert.equal(read.length, 1);
  });
});

test('a turn end snapshotted again under the same anchor, whose line was lost, is seen through the latest turn-end pointer', async () => {
  await oneSession(async ({ ws, fc, file }) => {
    await fc.snapshot('A', 'u1', 'user-message');
    await writeFile(join(ws, 'a.txt'), 'a1\n');
    await fc.snapshot('A', 'u1:turn-end', 'turn-end');
    const before = await readFile(file, 'utf8');
    await writeFile(join(ws, 'a.txt'), 'a2\n');
    await fc.snapshot('A', 'u1:turn-end', 'turn-end'); // Stop fired again for the same prompt
    const all = await fc.timeline.pointsWithSession('A');
    assert.equal(all.length, 3);
    await writeFile(file, before); // its line lost
    assert.equal((await fc.timeline.points()).length, 3, 'placed in memory for every reader (history and blame too)');
    assert.deepEqual(brief(await fc.timeline.pointsWithSession('A')), brief(all));
  });
});
