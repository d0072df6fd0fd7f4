import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { MAX_LISTED_PATHS, TIMELINE_CHANGES_FILE } from '../../../src/core/files/timeline-changes';
import { tempBase, writeTree } from './helpers';

const FILES = ['src/a.ts', 'src/b.ts', 'lib/c.ts', 'moved/b.ts', 'gone/d.ts', 'big/f0.ts'];

/** Two sessions taking turns over files changed, deleted, renamed, and a folder added then removed; `fn` asks. */
async function scripted(fn: (ctx: { ws: string; fc: FileCheckpointer; index: string }) => Promise<void>): Promise<void> {
  const base = await tempBase('arw-timeline-changes-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'src/a.ts': 'a\n1\n', 'src/b.ts': 'b\n1\n', 'lib/c.ts': 'c\n' });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  const turn = async (session: string, n: number, edit: () => Promise<void>) => {
    await fc.snapshot(session, `${session}${n}`, 'user-message');
    await edit();
    await fc.snapshot(session, `${session}${n}:turn-end`, 'turn-end');
  };
  try {
    await turn('A', 1, () => writeFile(join(ws, 'src/a.ts'), 'a\n1\n2\n'));
    await turn('B', 1, async () => {
      await mkdir(join(ws, 'gone'));
      await writeFile(join(ws, 'gone/d.ts'), 'd\n');
      await writeFile(join(ws, 'lib/c.ts'), 'c\nc2\n');
    });
    await writeFile(join(ws, 'src/a.ts'), 'a\nby hand\n1\n2\n');
    await turn('A', 2, async () => {
      await mkdir(join(ws, 'moved'));
      await rename(join(ws, 'src/b.ts'), join(ws, 'moved/b.ts'));
    });
    await turn('B', 2, async () => {
      await rm(join(ws, 'gone'), { recursive: true });
      await writeFile(join(ws, 'moved/b.ts'), 'b\n1\nB2\n');
    });
    await turn('A', 3, async () => {
      await mkdir(join(ws, 'big'));
      for (let i = 0; i <= MAX_LISTED_PATHS; i++) await writeFile(join(ws, `big/f${i}.ts`), `f${i}\n`);
      await writeFile(join(ws, 'src/a.ts'), 'a\nby hand\n1\n2\nA3\n');
    });
    await turn('B', 3, async () => {
      for (let i = 0; i <= MAX_LISTED_PATHS; i++) await writeFile(join(ws, `big/f${i}.ts`), `f${i}\nB3\n`);
    });
    await turn('A', 4, () => writeFile(join(ws, 'big/f0.ts'), 'f0\nB3\nA4\n'));
    await fn({ ws, fc, index: join(fc.storeDir, TIMELINE_CHANGES_FILE) });
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
}

async function answersOf(fc: FileCheckpointer, files = FILES): Promise<string> {
  const out: unknown[] = [];
  for (const f of files) out.push(await fc.fileHistory(f), await fc.blame(f));
  return JSON.stringify(out);
}

async function answers(ws: string, home: string, files = FILES): Promise<string> {
  // a fresh checkpointer each time, as the CLI's `history` and `blame` are
  const fc = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    return await answersOf(fc, files);
  } finally {
    await fc.dispose();
  }
}

const homeOf = (fc: FileCheckpointer) => join(fc.storeDir, '..', '..');

test('each snapshot writes the paths it changed since the point before it; a folder on one side only is named once', async () => {
  await scripted(async ({ fc, index }) => {
    const lines = (await readFile(index, 'utf8')).split('\n').filter((l) => l !== '');
    const paths = lines.map((l) =>
      (JSON.parse(l.slice(9)) as { paths: [string, string | null][] }).paths.map(([p, h]) => `${p}${h === null ? ' -' : h === undefined ? ' *' : ''}`),
    );
    assert.deepEqual(paths, [
      ['src/a.ts'],
      ['gone -', 'lib/c.ts'],
      ['src/a.ts'], // the hand edit, seen by A's next prompt
      ['moved -', 'src/b.ts -'],
      ['gone -', 'moved/b.ts'],
      ['big -', 'src/a.ts'], // a new folder: named once, not its files
      ['big *'], // more than MAX_LISTED_PATHS files changed: their top folder
      ['big/f0.ts'],
    ]);
    const points = await fc.timeline.points();
    assert.equal(points.length, 14);
  });
});

test('history and blame give the same answers from the index, from a damaged one, from none, and after gc wrote it again', async () => {
  await scripted(async ({ ws, fc, index }) => {
    const home = homeOf(fc);
    const expected = await answers(ws, home);
    const whole = await readFile(index, 'utf8');
    // without the index (a store older than it): every pair from the trees
    await rm(index);
    assert.equal(await answers(ws, home), expected, 'no index');
    // a line damaged in the middle (its CRC fails): that pair from the trees, never from the damaged line
    const lines = whole.split('\n');
    lines[3] = lines[3]!.replace('src/b.ts', 'src/x.ts');
    await writeFile(index, lines.join('\n'));
    assert.equal(await answers(ws, home), expected, 'a damaged line');
    // a line cut short by a crash
    await writeFile(index, whole);
    await truncate(index, whole.length - 40);
    assert.equal(await answers(ws, home), expected, 'a torn last line');
    // gc writes it whole again: every pair of the timeline, nothing damaged
    await fc.gc();
    assert.equal(await readFile(index, 'utf8'), whole);
    assert.equal(await answers(ws, home), expected, 'after gc');
  });
});

test("files named like a line's keys, and lines appended after a checkpointer that stays first read the index, answer as from the trees", async () => {
  await scripted(async ({ ws, fc, index }) => {
    const files = [...FILES, 'from', 'to', 'paths'];
    await answersOf(fc, files); // the index read now: what follows is appended to what this checkpointer has read
    for (const n of [5, 6]) {
      await fc.snapshot('A', `A${n}`, 'user-message');
      for (const f of ['from', 'to', 'src/a.ts']) await writeFile(join(ws, f), `${f} ${n}\n`);
      await fc.snapshot('A', `A${n}:turn-end`, 'turn-end');
      await writeFile(join(ws, 'paths'), `by hand ${n}\n`);
    }
    const warm = await answersOf(fc, files);
    const fresh = await answers(ws, homeOf(fc), files);
    await rm(index);
    const fromTrees = await answers(ws, homeOf(fc), files);
    assert.equal(fresh, fromTrees);
    assert.equal(warm, fromTrees);
    assert.ok(fromTrees.includes('"path":"from"') && fromTrees.includes('"path":"paths"'));
  });
});
