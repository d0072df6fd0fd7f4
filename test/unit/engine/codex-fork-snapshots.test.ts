// A Codex fork keeps the copied turns' ids, which the origin's hook snapshotted them under in the origin's thread:
// the fork shows those snapshots on its copied prompts and rewinds them exactly as the origin would.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { readCodexSession } from '../../../src/core/sources/codex';
import { CodexSource } from '../../../src/core/sources/codex/codex-source';
import { runCodexHook } from '../../../src/core/sources/codex/hook-handler';
import { freshProcessSnapshot } from '../../../src/core/service/fresh-hook-snapshot';
import { Rollout } from '../sources/codex/builder';
import { readTree, replaceFiles } from '../files/helpers';

describe("engine: a Codex fork rewinds its copied prompts from the origin's snapshots", () => {
  let dir: string;
  let home: string;
  let ws: string;
  let codexHome: string;
  let engine: RewindEngine;
  let forkRef: string;
  const ids: Record<string, string> = {};
  const threadId = '01a20aad-bbbb-7000-8000-000000000001';
  const atP1 = { 'a.txt': 'v1\n' };
  const atP2 = { 'a.txt': 'v2\n', 'b.txt': 'b\n' };
  const now = { 'a.txt': 'v3\n', 'c.txt': 'c\n' };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-codex-fork-snap-'));
    home = join(dir, 'home');
    ws = join(dir, 'ws');
    codexHome = join(dir, 'codexhome');
    await mkdir(ws, { recursive: true });
    const r = new Rollout(threadId, ws).turn('first', 'turn-1').say('one').end();
    r.turn('second', 'turn-2').say('two').end();
    r.turn('third', 'turn-3').say('three').end();
    const file = r.write(codexHome);
    const s = await readCodexSession(file, { home: codexHome });
    for (const [i, p] of s.userPrompts().entries()) ids[`p${i + 1}`] = p.entryId;
    const hook = (turn: string) =>
      runCodexHook(
        { hook_event_name: 'UserPromptSubmit', session_id: threadId, turn_id: turn, cwd: ws, prompt: 'x' },
        { home, snapshot: freshProcessSnapshot(home, () => {}) },
      );
    await replaceFiles(ws, atP1);
    assert.equal((await hook('turn-1')).action, 'snapshot');
    await replaceFiles(ws, atP2);
    assert.equal((await hook('turn-2')).action, 'snapshot');
    await replaceFiles(ws, now);

    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
      foreignSources: () => [new CodexSource({ home: codexHome })],
    });
    const outcome = await engine.applyRewind(file, ids.p3!, 'conversation');
    forkRef = outcome.fork!.sessionRef;
    assert.deepEqual(await readTree(ws), now);
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it("shows the origin's snapshots on the copied prompts", async () => {
    const details = await engine.describeSession(forkRef);
    assert.deepEqual(details.fileCheckpoints.map((c) => c.anchorEntryId).sort(), [ids.p1, ids.p2].sort());
  });

  it("rewinds a copied prompt to exactly the origin's files, and undo puts them back", async () => {
    const dry = await engine.rewindFiles(forkRef, ids.p2!, { dryRun: true });
    assert.ok(dry.canRewind, JSON.stringify(dry));
    assert.deepEqual(await readTree(ws), now);
    await engine.rewindFiles(forkRef, ids.p1!);
    assert.deepEqual(await readTree(ws), atP1);
    await engine.undoLastRewind(forkRef);
    assert.deepEqual(await readTree(ws), now);
  });
});
