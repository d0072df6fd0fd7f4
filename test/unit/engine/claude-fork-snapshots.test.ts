// A Claude Code fork's copied prompts were snapshotted by the origin's hook (origin session id, origin prompt ids;
// `--fork-session` gives the copies the fork's new prompt id): the fork shows them and rewinds them exactly as the
// origin would, from the origin's snapshots, and listing never writes to the store.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Catalog } from '../../../src/core/catalog/catalog';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { FileCheckpointer } from '../../../src/core/files';
import { ClaudeSource } from '../../../src/core/sources/claude/claude-source';
import { readClaudeSession, writeClaudeFork } from '../../../src/core/sources/claude';
import { Transcript } from '../sources/claude/builder';
import { readTree, replaceFiles } from '../files/helpers';

const ORIGIN = '11111111-aaaa-4333-8444-555555555555';
const FORK = '66666666-aaaa-4333-8444-555555555555';

async function storeFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe("engine: a Claude Code fork rewinds its copied prompts from the origin's snapshots", () => {
  let dir: string;
  let home: string;
  let ws: string;
  let config: string;
  let engine: RewindEngine;
  let forkRef: string;
  let originFile: string;
  const ids: Record<string, string> = {};
  const atP1 = { 'a.txt': 'v1\n' };
  const atP2 = { 'a.txt': 'v2\n', 'b.txt': 'b\n' };
  const atFork = { 'a.txt': 'v3\n', 'c.txt': 'c\n' };
  const now = { 'a.txt': 'v4\n', 'c.txt': 'c\n', 'd.txt': 'd\n' };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-claude-fork-snap-'));
    home = join(dir, 'home');
    ws = join(dir, 'ws');
    config = join(dir, 'claude');
    await mkdir(ws, { recursive: true });
    const o = new Transcript(ORIGIN, ws);
    ids.p1 = o.user(null, 'first', { uuid: 'aaaaaaaa-0001', promptId: 'pid-1' });
    ids.a1 = o.text(ids.p1, 'msg_1', 'one', { uuid: 'aaaaaaaa-0002', promptId: 'pid-1' });
    ids.p2 = o.user(ids.a1, 'second', { uuid: 'aaaaaaaa-0003', promptId: 'pid-2' });
    ids.a2 = o.text(ids.p2, 'msg_2', 'two', { uuid: 'aaaaaaaa-0004', promptId: 'pid-2' });
    originFile = o.write(config, '-fork-test-ws');
    // the origin's hook snapshots, under the origin's id and prompt ids
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await replaceFiles(ws, atP1);
    await fc.snapshot(ORIGIN, 'pid-1', 'user-message');
    await replaceFiles(ws, atP2);
    await fc.snapshot(ORIGIN, 'pid-2', 'user-message');
    await replaceFiles(ws, atFork);
    // the origin's last turn ends (its Stop hook) before the fork is made: what changes after it is the fork's
    await fc.snapshot(ORIGIN, 'pid-2:turn-end', 'turn-end');
    await new Promise((r) => setTimeout(r, 20));
    // `claude --resume ORIGIN --fork-session` (2.1.330): copies with the same uuids, every copied line given the
    // fork's new prompt id, which its own new prompt carries too
    const f = new Transcript(FORK, ws);
    f.raw({ type: 'queue-operation', operation: 'enqueue', content: 'third', sessionId: FORK, timestamp: new Date().toISOString() });
    for (const l of o.lines) f.raw({ ...l, sessionId: FORK, promptId: 'pid-fork' });
    ids.fp = f.user(ids.a2, 'third', { uuid: 'ffffffff-0001', promptId: 'pid-fork' });
    f.text(ids.fp, 'msg_3', 'three', { uuid: 'ffffffff-0002', promptId: 'pid-fork' });
    forkRef = f.write(config, '-fork-test-ws');
    await fc.snapshot(FORK, 'pid-fork', 'user-message');
    await fc.dispose();
    await replaceFiles(ws, now);

    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
      foreignSources: () => [new ClaudeSource({ configDirs: [config], home })],
    });
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it("shows a snapshot on every copied prompt (the origin's), and on its own prompt its own; listing writes nothing", async () => {
    const store = join(home, 'checkpoints');
    const before = await storeFiles(store);
    const details = await engine.describeSession(forkRef);
    assert.deepEqual(details.fileCheckpoints.map((c) => c.anchorEntryId).sort(), [ids.p1, ids.p2, ids.fp].sort());
    const { items } = await engine.loadTranscript(forkRef);
    assert.deepEqual(items.find((i) => i.entryId === ids.p1)?.fileCheckpoint, { files: 1 });
    assert.deepEqual(items.find((i) => i.entryId === ids.p2)?.fileCheckpoint, { files: 2 });
    assert.deepEqual(await storeFiles(store), before);
  });

  it("the session catalog lists the origin's snapshots on the copied prompts too", async () => {
    const source = new ClaudeSource({ configDirs: [config], home });
    const catalog = await Catalog.open({ home, openForeign: (f) => source.open(f) });
    try {
      assert.equal(await catalog.refreshSession(forkRef, 'claude'), 'indexed');
      const files = catalog.checkpointsOf(forkRef).filter((c) => c.kind === 'file');
      assert.deepEqual(files.map((c) => c.entryId).sort(), [ids.p1, ids.p2, ids.fp].sort());
    } finally {
      await catalog.close();
    }
  });

  it("a dry run of a copied prompt names the files that differ from the origin's snapshot, and changes nothing", async () => {
    const dry = await engine.rewindFiles(forkRef, ids.p2!, { dryRun: true });
    assert.ok(dry.canRewind, JSON.stringify(dry));
    assert.deepEqual([...dry.filesChanged].sort(), ['a.txt', 'b.txt', 'c.txt', 'd.txt']);
    assert.deepEqual(await readTree(ws), now);
  });

  it("rewinds a copied prompt to exactly the origin's files, and undo puts them back", async () => {
    await engine.rewindFiles(forkRef, ids.p1!);
    assert.deepEqual(await readTree(ws), atP1);
    assert.equal((await engine.fileAtAnchor(forkRef, ids.p2!, 'b.txt'))?.toString(), 'b\n');
    await engine.undoLastRewind(forkRef);
    assert.deepEqual(await readTree(ws), now);
  });

  it("the fork's own prompt keeps its own snapshot, not a copied prompt's", async () => {
    await engine.rewindFiles(forkRef, ids.fp!);
    assert.deepEqual(await readTree(ws), atFork);
    await engine.undoLastRewind(forkRef);
    assert.deepEqual(await readTree(ws), now);
  });

  it("a fork made by Rewind to here (lines marked forkedFrom, the origin's prompt ids kept) rewinds the same way", async () => {
    const ours = await writeClaudeFork(await readClaudeSession(originFile), ids.p2!);
    const details = await engine.describeSession(ours.sessionRef);
    assert.deepEqual(
      details.fileCheckpoints.map((c) => c.anchorEntryId),
      [ids.p1],
    );
    await engine.rewindFiles(ours.sessionRef, ids.p1!);
    assert.deepEqual(await readTree(ws), atP1);
    await engine.undoLastRewind(ours.sessionRef);
    assert.deepEqual(await readTree(ws), now);
    await unlink(ours.sessionRef);
  });

  it('an origin that is gone leaves the copied prompts without a snapshot, and no error', async () => {
    await engine.dispose();
    await rm(join(home, 'checkpoints'), { recursive: true, force: true });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    await fc.snapshot(FORK, 'pid-fork', 'user-message');
    await fc.dispose();
    await unlink(originFile);
    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: (m) => assert.fail(m),
      foreignSources: () => [new ClaudeSource({ configDirs: [config], home })],
    });
    const details = await engine.describeSession(forkRef);
    assert.deepEqual(
      details.fileCheckpoints.map((c) => c.anchorEntryId),
      [ids.fp],
    );
    const dry = await engine.rewindFiles(forkRef, ids.p1!, { dryRun: true });
    assert.equal(dry.canRewind, false);
  });
});
