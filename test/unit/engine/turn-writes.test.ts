// The claim lookup on a rewind's dry run (turn-writes.ts): an agent's records are read only for a turn that ended
// right before a change of the folder in nobody's time, from the rewind's prompt on; with no such change no session is
// listed or read, and a session's records are read once while its log stays as it was. Counted by adapter calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { claimableSince, insideWorkspace, turnWritesSince, type TurnWritesContext } from '../../../src/core/engine/turn-writes';
import type { SessionListing } from '../../../src/core/sources/listings';
import type { SourceAdapter } from '../../../src/core/sources/source-adapter';
import type { SessionView } from '../../../src/core/sources/session-view';
import { tempBase, writeTree } from '../files/helpers';

/** Two sessions of ours in one folder, V and B, whose agents' records say what each prompt's turn wrote; every call
 *  to list, open or ask an adapter counted. */
function rig(ws: string, written: Record<string, Record<string, string[]>>) {
  const calls = { list: 0, view: 0, adapterOf: 0, written: [] as string[] };
  const views = new Map<string, SessionView>();
  const viewOf = (sessionId: string) => {
    let v = views.get(sessionId);
    if (!v) views.set(sessionId, (v = { sessionId, cwd: ws, getEntries: () => [] } as unknown as SessionView));
    return v;
  };
  const adapter = {
    async filesWrittenByTurn(view: SessionView) {
      calls.written.push(view.sessionId);
      return new Map(Object.entries(written[view.sessionId] ?? {}).map(([anchor, files]) => [anchor, files.map((f) => join(ws, f))]));
    },
  } as unknown as SourceAdapter;
  const ctx: TurnWritesContext = {
    async listSessions() {
      calls.list++;
      return Object.keys(written).map((id) => ({ sessionRef: `ref-${id}`, sessionId: id }) as SessionListing);
    },
    async view(ref) {
      calls.view++;
      return viewOf(ref.slice('ref-'.length));
    },
    async adapterOf() {
      calls.adapterOf++;
      return adapter;
    },
  };
  return { calls, ctx, adapter, viewOf };
}

async function folder(fn: (ws: string, a: FileCheckpointer) => Promise<void>): Promise<void> {
  const base = await tempBase('arw-turn-writes-');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
  const a = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
  try {
    await fn(ws, a);
  } finally {
    await a.dispose();
    await base.cleanup();
  }
}

test('no change in nobody’s time after a turn: the dry run’s claim lookup lists, opens and asks nothing', async () => {
  await folder(async (ws, a) => {
    await a.snapshot('V', 'p1', 'user-message');
    await writeFile(join(ws, 'a.txt'), 'a by V\n');
    await a.snapshot('V', 'p1:end', 'turn-end');
    await a.snapshot('B', 'q1', 'user-message');
    await writeFile(join(ws, 'b.txt'), 'b by B\n');
    await a.snapshot('B', 'q1:end', 'turn-end');
    await a.snapshot('V', 'p2', 'user-message'); // V's turn is open now: the folder's changes since are V's
    const { calls, ctx, adapter, viewOf } = rig(ws, { V: { p1: ['a.txt'] }, B: { q1: ['b.txt'] } });
    const writes = await turnWritesSince(ctx, a, { view: viewOf('V'), adapter, anchorId: 'p1' });
    assert.deepEqual(writes, []);
    assert.deepEqual(calls, { list: 0, view: 0, adapterOf: 0, written: [] });
  });
});

test('a change right after another session’s turn end: only that session is read, and only once while its log holds', async () => {
  await folder(async (ws, a) => {
    await a.snapshot('V', 'p1', 'user-message');
    await writeFile(join(ws, 'a.txt'), 'a by V\n');
    await a.snapshot('V', 'p1:end', 'turn-end');
    await a.snapshot('B', 'q1', 'user-message');
    await a.snapshot('B', 'q1:end', 'turn-end');
    await writeFile(join(ws, 'b.txt'), 'b written late by B’s tool\n');
    await a.snapshot('V', 'p2', 'user-message');
    const { calls, ctx, adapter, viewOf } = rig(ws, { V: { p1: ['a.txt'] }, B: { q1: ['b.txt', '../outside.txt'] }, C: { r1: ['a.txt'] } });
    const points = await a.timelinePoints();
    assert.deepEqual(claimableSince(points, { sessionId: 'V', anchorId: 'p1' }), [{ sessionId: 'B', anchorId: 'q1' }]);
    for (let k = 0; k < 2; k++) {
      const writes = await turnWritesSince(ctx, a, { view: viewOf('V'), adapter, anchorId: 'p1' });
      assert.deepEqual(writes, [{ sessionId: 'B', anchorId: 'q1', paths: ['b.txt'] }], 'the path outside the workspace is left out');
    }
    assert.deepEqual(calls.written, ['B'], 'B’s records are read once; V’s and C’s never');
    // from a prompt after that change, nothing is asked at all
    const before = { ...calls, written: [...calls.written] };
    assert.deepEqual(await turnWritesSince(ctx, a, { view: viewOf('V'), adapter, anchorId: 'p2' }), []);
    assert.deepEqual(calls, before);
  });
});

test('only paths inside the workspace are claimed, relative with /', () => {
  assert.deepEqual(insideWorkspace('/w/proj', ['/w/proj/a/b.txt', '/w/other.txt', '/w/proj', 'rel.txt', '/etc/passwd']), ['a/b.txt']);
});
