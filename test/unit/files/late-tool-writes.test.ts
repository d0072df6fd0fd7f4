// A file an agent's tool wrote that reaches the disk just after the turn's end snapshot (VS Code's chat may write a
// file its create_file tool made after its Stop hook ran) lands on the timeline outside every turn, where it read as
// the user's, and a default rewind kept it. The agent's own records (turnWrites) claim it for that turn; a file no tool
// wrote stays the user's, and so does a change after anything else happened in the folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { FileCheckpointer, type TurnWrites } from '../../../src/core/files';
import { fingerprint, readTree, tempBase, userAnchor, writeTree } from './helpers';

const start = { 'keep.txt': 'keep\n', 'u.txt': 'u0\n' };

async function folder(
  fn: (ctx: { ws: string; a: FileCheckpointer; b: FileCheckpointer; edit: (rel: string, text: string) => Promise<void> }) => Promise<void>,
  files: Record<string, string> = start,
) {
  const base = await tempBase('arw-late-writes-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, files);
  const home = join(base.dir, 'home');
  const a = new FileCheckpointer({ workspaceRoot: ws, home });
  const b = new FileCheckpointer({ workspaceRoot: ws, home });
  const edit = async (rel: string, text: string) => {
    await mkdir(join(ws, rel, '..'), { recursive: true });
    await writeFile(join(ws, rel), text);
  };
  try {
    await fn({ ws, a, b, edit });
  } finally {
    await a.dispose();
    await b.dispose();
    await base.cleanup();
  }
}

/** Three requests of a chat session V; the second's tool edits keep.txt in its turn and its sub/new.txt appears only
 *  after the turn end, when the user also edits u.txt by hand; then the third request. */
async function lateCreate(ctx: { a: FileCheckpointer; edit: (rel: string, text: string) => Promise<void> }): Promise<void> {
  const { a, edit } = ctx;
  await a.snapshot('V', 'p1', 'user-message');
  await a.snapshot('V', 'p1:turn-end', 'turn-end');
  await a.snapshot('V', 'p2', 'user-message');
  await edit('keep.txt', 'keep, edited by the tool\n');
  await a.snapshot('V', 'p2:turn-end', 'turn-end');
  await edit('sub/new.txt', 'made by create_file, written late\n');
  await edit('u.txt', 'u1 by hand\n');
  await a.snapshot('V', 'p3', 'user-message');
  await a.snapshot('V', 'p3:turn-end', 'turn-end');
}

const vWrites: TurnWrites[] = [{ sessionId: 'V', anchorId: 'p2', paths: ['keep.txt', 'sub/new.txt'] }];

test("a file the turn's tool wrote that appears just after its turn end is the turn's; the user's own edit beside it stays the user's", async () => {
  await folder(async (ctx) => {
    await lateCreate(ctx);
    const { ws, a } = ctx;
    const changedBy = async (turnWrites?: TurnWrites[]) =>
      (await a.rewindFiles('V', 'p2', { dryRun: true, anchor: userAnchor, ...(turnWrites ? { turnWrites } : {}) })).files.map((f) => [
        f.path,
        f.changedBy,
        f.kept,
      ]);
    // the timeline alone: the late file reads as the user's (the CI failure)
    assert.deepEqual(await changedBy(), [
      ['keep.txt', 'this-session', false],
      ['sub/new.txt', 'user', true],
      ['u.txt', 'user', true],
    ]);
    assert.deepEqual(await changedBy(vWrites), [
      ['keep.txt', 'this-session', false],
      ['sub/new.txt', 'this-session', false],
      ['u.txt', 'user', true],
    ]);
    const before = await fingerprint(ws);
    const now = await readTree(ws);
    const r = await a.rewindFiles('V', 'p2', { anchor: userAnchor, turnWrites: vWrites });
    assert.deepEqual(r.filesChanged.sort(), ['keep.txt', 'sub/new.txt']);
    const expected: Record<string, string> = { ...now, 'keep.txt': start['keep.txt'] };
    delete expected['sub/new.txt'];
    assert.deepEqual(await readTree(ws), expected, "the default rewind brings back the turn's files and keeps the user's");
    await a.undoLastRewind('V');
    assert.deepEqual(await fingerprint(ws), before, 'undo puts everything back');
  });
});

test('a claim holds only right after the turn end: once another snapshot of the folder came between, the change is the user’s', async () => {
  await folder(async ({ a, b, edit }) => {
    await a.snapshot('V', 'p1', 'user-message');
    await edit('keep.txt', 'keep, edited by the tool\n');
    await a.snapshot('V', 'p1:turn-end', 'turn-end');
    await b.snapshot('B', 'q1', 'user-message');
    await b.snapshot('B', 'q1:turn-end', 'turn-end');
    // the user edits a file V's tool wrote, after B's turn: nobody's time, and not just after V's turn
    await edit('keep.txt', 'keep, edited by hand\n');
    const dry = await a.rewindFiles('V', 'p1', { dryRun: true, anchor: userAnchor, turnWrites: [{ sessionId: 'V', anchorId: 'p1', paths: ['keep.txt'] }] });
    assert.deepEqual(
      dry.files.map((f) => [f.path, f.changedBy]),
      [['keep.txt', 'user']],
    );
  });
});

test("another session's late file is that session's: named, and kept by a default rewind of this one", async () => {
  await folder(async ({ a, b, edit }) => {
    await a.snapshot('A', 'a1', 'user-message');
    await a.snapshot('A', 'a1:turn-end', 'turn-end');
    await b.snapshot('V', 'p1', 'user-message');
    await b.snapshot('V', 'p1:turn-end', 'turn-end');
    await edit('late.txt', 'written by V after its turn end\n');
    const dry = await a.rewindFiles('A', 'a1', { dryRun: true, anchor: userAnchor, turnWrites: [{ sessionId: 'V', anchorId: 'p1', paths: ['late.txt'] }] });
    assert.deepEqual(
      dry.files.map((f) => [f.path, f.changedBy, f.otherSession ?? '', f.otherPrompt ?? '', f.kept]),
      [['late.txt', 'other-session', 'V', 'p1', true]],
    );
  });
});

// The property: a session's turns write files through their tools (in the turn, or just after its end), the user
// edits files in between. Every write is new content, so the model knows each file's producer: the turn for what its
// tool wrote in the turn or just after its end (before any other snapshot), the user for anything else outside turns.
// In particular a user's edit of a file no tool of the turn before wrote stays "user".
type Step = { t: 'prompt' } | { t: 'end' } | { t: 'other' } | { t: 'tool'; file: number } | { t: 'late'; file: number } | { t: 'user'; file: number };
const FILES = ['one.txt', 'two.txt', 'dir/three.txt'];
const file = fc.nat(FILES.length - 1);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ t: 'prompt' }),
  fc.constant<Step>({ t: 'end' }),
  fc.constant<Step>({ t: 'other' }),
  fc.record({ t: fc.constant('tool' as const), file }),
  fc.record({ t: fc.constant('late' as const), file }),
  fc.record({ t: fc.constant('user' as const), file }),
  fc.record({ t: fc.constant('user' as const), file }),
);

test('property: only what a turn’s tools wrote is claimed for it; a user’s edit of a file no tool wrote stays the user’s', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
      await folder(
        async ({ a, b, edit }) => {
          await a.snapshot('V', 'p1', 'user-message');
          let n = 1;
          let open = true;
          /** The turn that ended with the last snapshot of the folder, if the last snapshot was its end. */
          let justEnded: number | undefined;
          let writes = 0;
          let others = 0;
          const wrote = new Map<number, Set<string>>();
          const producer = new Map<string, 'this-session' | 'user'>();
          const toolWrites = (turn: number, f: string) => wrote.set(turn, (wrote.get(turn) ?? new Set()).add(f));
          for (const s of steps) {
            if (s.t === 'prompt') {
              await a.snapshot('V', `p${++n}`, 'user-message');
              ((open = true), (justEnded = undefined));
            } else if (s.t === 'end' && open) {
              await a.snapshot('V', `p${n}:turn-end`, 'turn-end');
              ((open = false), (justEnded = n));
            } else if (s.t === 'other') {
              await b.snapshot('B', `q${++others}`, 'user-message');
              await b.snapshot('B', `q${others}:turn-end`, 'turn-end');
              justEnded = undefined;
            } else if (s.t === 'tool' && open) {
              const f = FILES[s.file]!;
              await edit(f, `${f} write ${++writes}\n`);
              toolWrites(n, f);
              producer.set(f, 'this-session');
            } else if (s.t === 'late' && justEnded !== undefined) {
              const f = FILES[s.file]!;
              await edit(f, `${f} write ${++writes}\n`);
              toolWrites(justEnded, f);
              producer.set(f, 'this-session');
            } else if (s.t === 'user') {
              const f = FILES[s.file]!;
              await edit(f, `${f} write ${++writes}\n`);
              // in a turn it is the turn's (the timeline cannot tell); outside, the user's unless the turn that just
              // ended wrote that file with its tools (a claim the records make, documented as the rule's limit)
              producer.set(f, open || (justEnded !== undefined && wrote.get(justEnded)?.has(f)) ? 'this-session' : 'user');
            }
          }
          const turnWrites = [...wrote].map(([k, set]) => ({ sessionId: 'V', anchorId: `p${k}`, paths: [...set] }));
          const dry = await a.rewindFiles('V', 'p1', { dryRun: true, anchor: userAnchor, turnWrites });
          assert.equal(dry.canRewind, true, dry.error);
          assert.deepEqual(
            Object.fromEntries(dry.files.map((f) => [f.path, f.changedBy])),
            Object.fromEntries([...producer].sort(([x], [y]) => (x < y ? -1 : 1))),
          );
        },
        Object.fromEntries(FILES.map((f) => [f, `${f} at start\n`])),
      );
    }),
    { numRuns: 25 },
  );
});
