import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { FileCheckpointer } from '../../../src/core/files';
import { promptPointIndex, TIMELINE_FILE, type TimelinePoint } from '../../../src/core/files/timeline';
import { tempBase, userAnchor, writeTree } from './helpers';

/** Two checkpointers on one folder (two processes: ours and an agent's hook), taking turns. */
async function twoSessions(fn: (ctx: { ws: string; a: FileCheckpointer; b: FileCheckpointer; file: string }) => Promise<void>): Promise<void> {
  const base = await tempBase('arw-timeline-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
  const home = join(base.dir, 'home');
  const a = new FileCheckpointer({ workspaceRoot: ws, home });
  const b = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    await fn({ ws, a, b, file: join(a.storeDir, TIMELINE_FILE) });
  } finally {
    await a.dispose();
    await b.dispose();
    await base.cleanup();
  }
}

const brief = (ps: { sessionId: string; anchorId: string; kind: string; prompt?: string }[]) =>
  ps.map((p) => `${p.sessionId} ${p.anchorId} ${p.kind} ${p.prompt ?? '-'}`);

async function interleave(ctx: { ws: string; a: FileCheckpointer; b: FileCheckpointer }): Promise<void> {
  await ctx.a.snapshot('A', 'a1', 'user-message');
  await writeFile(join(ctx.ws, 'a.txt'), 'a1\n');
  await ctx.b.snapshot('B', 'p1', 'user-message');
  await writeFile(join(ctx.ws, 'b.txt'), 'b1\n');
  await ctx.a.snapshot('A', 'r1', 'turn-end');
  await ctx.b.snapshot('B', 'p1:turn-end', 'turn-end');
}

const expected = ['A a1 user-message a1', 'B p1 user-message p1', 'A r1 turn-end a1', 'B p1:turn-end turn-end p1'];

test('every snapshot of a folder, from any session and process, is on one timeline in the order taken, with its prompt', async () => {
  await twoSessions(async (ctx) => {
    await interleave(ctx);
    assert.deepEqual(brief(await ctx.a.timeline.points()), expected);
    assert.deepEqual(brief(await ctx.b.timeline.points()), expected);
    // an unchanged user message snapshotted again keeps its one place
    await ctx.a.snapshot('A', 'a1', 'user-message').catch(() => {});
    assert.deepEqual(brief(await ctx.a.timeline.points()), expected);
    // a rewind's pre-restore snapshot is a point too
    await ctx.a.rewindFiles('A', 'a1', { anchor: userAnchor, overwriteUserModified: true });
    const after = brief(await ctx.b.timeline.points());
    assert.equal(after.length, 5);
    assert.match(after[4]!, /^A pre-restore:\S+ pre-restore -$/);
  });
});

test('a line cut short by a crash is ignored, and the next snapshot starts a line of its own', async () => {
  await twoSessions(async (ctx) => {
    await interleave(ctx);
    await appendFile(ctx.file, '1234abcd {"session":"A","anch');
    assert.deepEqual(brief(await ctx.a.timeline.points()), expected);
    await ctx.a.snapshot('A', 'a2', 'user-message');
    assert.deepEqual(brief(await ctx.a.timeline.points()), [...expected, 'A a2 user-message a2']);
  });
});

test('a damaged line or a lost file is mended from the snapshot records, keeping the order the records give', async () => {
  await twoSessions(async (ctx) => {
    await interleave(ctx);
    const lines = (await readFile(ctx.file, 'utf8')).split('\n');
    lines[1] = lines[1]!.replace('"p1"', '"p9"'); // the CRC no longer matches
    await writeFile(ctx.file, lines.join('\n'));
    assert.deepEqual(brief(await ctx.a.timeline.points()), expected, 'read: mended in memory');
    await ctx.a.gc();
    assert.doesNotMatch(await readFile(ctx.file, 'utf8'), /p9/, 'gc wrote the mended file');
    assert.deepEqual(brief(await ctx.b.timeline.points()), expected);
    await rm(ctx.file);
    assert.deepEqual(brief(await ctx.a.timeline.points()), expected, 'rebuilt from the records alone');
  });
});

test("a committed snapshot the timeline lost is seen by its own session's rewinds at once and put back by gc", async () => {
  await twoSessions(async (ctx) => {
    await interleave(ctx);
    const text = await readFile(ctx.file, 'utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    await writeFile(ctx.file, lines.filter((l) => !l.includes('"r1"')).join('\n') + '\n');
    // every reader places it in memory (history and blame too); gc writes it back
    assert.deepEqual(brief(await ctx.a.timeline.points()), expected);
    assert.deepEqual(brief(await ctx.a.timeline.pointsWithSession('A')), expected);
    assert.deepEqual(await ctx.a.timeline.reconcile(), { added: 1, dropped: 0 });
    assert.deepEqual(brief(await ctx.b.timeline.points()), expected);
  });
});

test("a fork's adopted snapshot is not a moment of the workspace: it is not put on the timeline", async () => {
  await twoSessions(async (ctx) => {
    await interleave(ctx);
    await ctx.a.adoptSnapshot('A', 'a1', 'F', 'f1');
    await rm(ctx.file);
    await ctx.a.gc();
    assert.deepEqual(brief(await ctx.a.timeline.points()), expected);
  });
});

test('ids with quotes, backslashes, line breaks and other scripts, and a line written with its fields in another order, read back as written', async () => {
  await twoSessions(async (ctx) => {
    const odd = ['say "hi"', 'C:\\dir\\x', 'two\nlines', 'ünï ✓ 𝄞', 'tab\there'];
    for (const [k, id] of odd.entries()) await ctx.a.snapshot(`S ${id}`, `${id} ${k}`, 'user-message');
    const got = await ctx.b.timeline.points();
    assert.deepEqual(
      got.map((p) => [p.sessionId, p.anchorId, p.prompt]),
      odd.map((id, k) => [`S ${id}`, `${id} ${k}`, `${id} ${k}`]),
    );
    // the same point, its JSON's fields in another order (a writer other than this one): read by a parse, not by position
    const p = got[0]!;
    const json = JSON.stringify({ root: p.root, at: p.createdAt, kind: 'turn-end', anchor: 'x', session: 'S say "hi"' });
    await appendFile(ctx.file, `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`);
    const last = (await ctx.a.timeline.points()).at(-1)!;
    assert.deepEqual([last.sessionId, last.anchorId, last.kind, last.root, last.prompt], ['S say "hi"', 'x', 'turn-end', p.root, `${odd[0]} 0`]);
  });
});

test("a prompt's point is its session's last user-message point with that anchor; none is -1", () => {
  const at = (sessionId: string, anchorId: string, kind: TimelinePoint['kind']): TimelinePoint => ({
    sessionId,
    anchorId,
    kind,
    root: 'a'.repeat(64),
    createdAt: '2026-11-27T00:00:00.000Z',
  });
  const points = [
    at('A', 'p1', 'user-message'),
    at('B', 'p1', 'user-message'), // another session's prompt of the same anchor id
    at('A', 'p1', 'turn-end'),
    at('A', 'p1', 'user-message'), // the same prompt snapshotted again: the later one counts
    at('A', 'p1', 'pre-restore'),
    at('A', 'p2', 'user-message'),
  ];
  assert.equal(promptPointIndex(points, { sessionId: 'A', anchorId: 'p1' }), 3);
  assert.equal(promptPointIndex(points, { sessionId: 'B', anchorId: 'p1' }), 1);
  assert.equal(promptPointIndex(points, { sessionId: 'A', anchorId: 'p2' }), 5);
  assert.equal(promptPointIndex(points, { sessionId: 'B', anchorId: 'p2' }), -1);
  assert.equal(promptPointIndex(points.slice(0, 3), { sessionId: 'A', anchorId: 'p2' }), -1);
  assert.equal(promptPointIndex([], { sessionId: 'A', anchorId: 'p1' }), -1);
});
