import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { fingerprint, readTree, tempBase, userAnchor, writeTree } from './helpers';

const start = { 'a.txt': 'a0\n', 'u.txt': 'u0\n', 'b.txt': 'b0\n', 'shared.txt': 's0\n', 'a2.txt': 'x0\n' };

/**
 * Session A (ours) and session B (an agent's hooks, another process) take turns in one folder, the user edits in
 * between, and once their turns overlap.
 */
async function scenario(fn: (ctx: { ws: string; a: FileCheckpointer }) => Promise<void>): Promise<void> {
  const base = await tempBase('arw-attribution-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, start);
  const home = join(base.dir, 'home');
  const a = new FileCheckpointer({ workspaceRoot: ws, home });
  const b = new FileCheckpointer({ workspaceRoot: ws, home });
  const edit = (rel: string, text: string) => writeFile(join(ws, rel), text);
  try {
    await a.snapshot('A', 'u1', 'user-message');
    await edit('a.txt', 'a1 by A\n');
    await a.snapshot('A', 'r1', 'turn-end');
    await edit('u.txt', 'u1 by hand\n');
    await b.snapshot('B', 'p1', 'user-message');
    await edit('b.txt', 'b1 by B\n');
    await b.snapshot('B', 'p1:turn-end', 'turn-end');
    await a.snapshot('A', 'u2', 'user-message');
    await edit('a2.txt', 'x1 by A\n');
    await b.snapshot('B', 'p2', 'user-message');
    await edit('shared.txt', 's1 while both worked\n');
    await b.snapshot('B', 'p2:turn-end', 'turn-end');
    await a.snapshot('A', 'r2', 'turn-end');
    await edit('a2.txt', 'x2 by hand\n');
    await fn({ ws, a });
  } finally {
    await a.dispose();
    await b.dispose();
    await base.cleanup();
  }
}

test("a dry run says who made each file's last change since the message: this session, another (named, with its prompt), several, or the user", async () => {
  await scenario(async ({ a }) => {
    const dry = await a.rewindFiles('A', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(
      dry.files.map((f) => [f.path, f.changedBy, f.otherSession ?? f.sessions?.join('+') ?? '', f.otherPrompt ?? '', f.kept]),
      [
        ['a.txt', 'this-session', '', '', false],
        ['a2.txt', 'user', '', '', true],
        ['b.txt', 'other-session', 'B', 'p1', true],
        ['shared.txt', 'several', 'A+B', '', true],
        ['u.txt', 'user', '', '', true],
      ],
    );
    assert.deepEqual(dry.filesChanged, ['a.txt']);
    assert.deepEqual(dry.userModified, ['a2.txt', 'u.txt']);
    assert.deepEqual(dry.otherSessions, ['b.txt', 'shared.txt']);
  });
});

test("by default a rewind brings back only this session's own changes, byte for byte; its undo puts everything back", async () => {
  await scenario(async ({ ws, a }) => {
    const before = await fingerprint(ws);
    const now = await readTree(ws);
    const r = await a.rewindFiles('A', 'u1', { anchor: userAnchor });
    assert.deepEqual(r.filesChanged, ['a.txt']);
    assert.deepEqual(await readTree(ws), { ...now, 'a.txt': start['a.txt'] });
    await a.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before);
  });
});

test("each kind is included by its own option: the other sessions', the user's, or both, and undo is exact each time", async () => {
  await scenario(async ({ ws, a }) => {
    const before = await fingerprint(ws);
    const now = await readTree(ws);
    await a.rewindFiles('A', 'u1', { anchor: userAnchor, includeOtherSessions: true });
    assert.deepEqual(await readTree(ws), { ...now, 'a.txt': start['a.txt'], 'b.txt': start['b.txt'], 'shared.txt': start['shared.txt'] });
    await a.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before);
    await a.rewindFiles('A', 'u1', { anchor: userAnchor, overwriteUserModified: true });
    assert.deepEqual(await readTree(ws), { ...now, 'a.txt': start['a.txt'], 'u.txt': start['u.txt'], 'a2.txt': start['a2.txt'] });
    await a.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before);
    await a.rewindFiles('A', 'u1', { anchor: userAnchor, overwriteUserModified: true, includeOtherSessions: true });
    assert.deepEqual(await readTree(ws), start);
    await a.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before);
    assert.equal(await readFile(join(ws, 'a2.txt'), 'utf8'), 'x2 by hand\n');
  });
});

test("a rewind and its undo are not anyone's change: afterwards every file is attributed as before", async () => {
  await scenario(async ({ a }) => {
    const who = async () => (await a.rewindFiles('A', 'u1', { dryRun: true, anchor: userAnchor })).files.map((f) => [f.path, f.changedBy]);
    const before = await who();
    await a.rewindFiles('A', 'u1', { anchor: userAnchor, overwriteUserModified: true, includeOtherSessions: true });
    await a.undoLastRewind('A');
    assert.deepEqual(await who(), before);
  });
});

test("a turn with several turn ends (ours takes one at each assistant message) is one turn: the agent's edits between them are its own", async () => {
  const base = await tempBase('arw-attribution-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'x.txt': 'x0\n', 'y.txt': 'y0\n', 'z.txt': 'z0\n' });
  const a = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    await a.snapshot('A', 'u1', 'user-message');
    await writeFile(join(ws, 'x.txt'), 'x1\n');
    await a.snapshot('A', 'm1', 'turn-end');
    await writeFile(join(ws, 'y.txt'), 'y1 by the next tool call\n');
    await a.snapshot('A', 'm2', 'turn-end');
    await writeFile(join(ws, 'z.txt'), 'z1 by hand\n');
    const dry = await a.rewindFiles('A', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(
      dry.files.map((f) => [f.path, f.changedBy]),
      [
        ['x.txt', 'this-session'],
        ['y.txt', 'this-session'],
        ['z.txt', 'user'],
      ],
    );
  } finally {
    await a.dispose();
    await base.cleanup();
  }
});

test("the install's baseline snapshot is nobody's turn: an agent's changes after it stay the agent's (it was taken as a prompt start)", async () => {
  const base = await tempBase('arw-attribution-baseline-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, start);
  const home = join(base.dir, 'home');
  const install = new FileCheckpointer({ workspaceRoot: ws, home });
  const agent = new FileCheckpointer({ workspaceRoot: ws, home });
  try {
    // as `hooks install claude` takes it (and versions before this rule took it): a prompt start whose turn never ends
    await install.snapshot('claude-hooks-baseline', 'install-1', 'user-message');
    await agent.snapshot('S', 'p1', 'user-message');
    await writeFile(join(ws, 'a.txt'), 'a1 by S\n');
    await agent.snapshot('S', 'p1:turn-end', 'turn-end');
    await agent.snapshot('S', 'p2', 'user-message');
    await writeFile(join(ws, 'b.txt'), 'b1 by S\n');
    await agent.snapshot('S', 'p2:turn-end', 'turn-end');
    const dry = await agent.rewindFiles('S', 'p1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(
      dry.files.map((f) => [f.path, f.changedBy, f.kept]),
      [
        ['a.txt', 'this-session', false],
        ['b.txt', 'this-session', false],
      ],
    );
    await agent.rewindFiles('S', 'p1', { anchor: userAnchor });
    assert.deepEqual(await readTree(ws), start);
  } finally {
    await install.dispose();
    await agent.dispose();
    await base.cleanup();
  }
});
