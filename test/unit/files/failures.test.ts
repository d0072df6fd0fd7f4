import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { fingerprint, tempBase, userAnchor, writeTree } from './helpers';

async function setup() {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a.txt': 'one\n' });
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  await fc.snapshot('session-A', 'user-1', 'user-message');
  await fc.snapshot('session-B', 'user-B1', 'user-message');
  await writeFile(join(ws, 'a.txt'), 'two\n');
  return { base, ws, fc };
}

const empty = { filesChanged: [], insertions: 0, deletions: 0, userModified: [], otherSessions: [], skipped: [], files: [] };

const cases = [
  {
    name: 'checkpointing off',
    anchorId: 'user-1',
    anchor: { checkpointingEnabled: false, kind: 'user-message' as const },
    error: 'File checkpointing is off, so there are no file snapshots to rewind to. Turn it on before sending messages to be able to rewind files.',
  },
  {
    name: 'id is not a user message',
    anchorId: 'assistant-1',
    anchor: { checkpointingEnabled: true, kind: 'other-entry' as const },
    error: 'Entry assistant-1 is not a user message; files can only be rewound to the moment a user message was sent.',
  },
  {
    name: 'id belongs to another session',
    anchorId: 'user-B1',
    anchor: { checkpointingEnabled: true, kind: 'missing' as const },
    error: 'Message user-B1 belongs to another session (session-B); files can only be rewound from the session that made the snapshot.',
  },
  {
    name: 'id unknown everywhere',
    anchorId: 'nope',
    anchor: { checkpointingEnabled: true, kind: 'missing' as const },
    error: 'There is no message nope in this session.',
  },
  {
    name: 'message has no snapshot',
    anchorId: 'user-2',
    anchor: userAnchor,
    error:
      'Message user-2 has no file snapshot (it was sent while file checkpointing was off, its hook could not take one before the agent went on (a checkpoint service that does not answer in time takes none afterwards), or it was removed to stay under the storage limit).',
  },
];

for (const c of cases) {
  test(`rewindFiles failure: ${c.name} → exact dry-run shape, the real call throws the same message, nothing touched`, async () => {
    const { base, ws, fc } = await setup();
    try {
      const before = await fingerprint(ws);
      const dry = await fc.rewindFiles('session-A', c.anchorId, { dryRun: true, anchor: c.anchor });
      assert.deepEqual(dry, { canRewind: false, error: c.error, ...empty });
      await assert.rejects(fc.rewindFiles('session-A', c.anchorId, { anchor: c.anchor }), (err: Error) => err.message === c.error);
      assert.deepEqual(await fingerprint(ws), before);
      assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'two\n');
    } finally {
      await fc.dispose();
      await base.cleanup();
    }
  });
}

test('a turn-end snapshot id is not a rewind target even though it has a snapshot', async () => {
  const { base, fc } = await setup();
  try {
    await fc.snapshot('session-A', 'assistant-9', 'turn-end');
    const dry = await fc.rewindFiles('session-A', 'assistant-9', { dryRun: true, anchor: userAnchor });
    assert.equal(dry.canRewind, false);
    assert.match(dry.error!, /has no file snapshot/);
  } finally {
    await fc.dispose();
    await base.cleanup();
  }
});

test('ids stay valid for a new FileCheckpointer (a restarted process)', async () => {
  const { base, ws, fc } = await setup();
  try {
    await fc.dispose();
    const again = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    // both sessions' prompts are still open when a.txt changes: it is theirs together, brought back when asked
    const dry = await again.rewindFiles('session-A', 'user-1', { dryRun: true, anchor: userAnchor, includeOtherSessions: true });
    assert.deepEqual(dry, {
      canRewind: true,
      filesChanged: ['a.txt'],
      insertions: 1,
      deletions: 1,
      userModified: [],
      otherSessions: ['a.txt'],
      skipped: [],
      files: [
        {
          path: 'a.txt',
          status: 'modified',
          insertions: 1,
          deletions: 1,
          binary: false,
          userModified: false,
          changedBy: 'several',
          sessions: ['session-A', 'session-B'],
          kept: false,
        },
      ],
    });
    await again.dispose();
  } finally {
    await base.cleanup();
  }
});
