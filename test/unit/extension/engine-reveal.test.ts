// The engine side of "open the transcript at a message": search hits (through the catalog) name their branch,
// and locateEntry says where a message is, over real session files.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { branchOfEachEntry } from '../../../src/core/engine/entry-branches';
import { parseSettings } from '../../../src/core/settings/settings';
import { SessionManager } from '../../../src/core/session/session-manager';
import type { SessionEntry } from '../../../src/core/session/types';

function engineFor(home: string, workspace: string): RewindEngine {
  return new RewindEngine({
    settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
    workspaceRoots: [workspace],
    warn: () => {},
  });
}

/** main: u1 a1 u2 "zebra on main" a2; then a fork at u1 (main-v2, active) that goes on with u3 "zebra on the fork". */
async function forkedSession(home: string, workspace: string, engine: RewindEngine) {
  const s = SessionManager.create(workspace, { home, title: 'Zoo', deferUntilAssistant: false });
  const ids: Record<string, string> = {};
  ids.u1 = s.appendMessage({ role: 'user', content: 'first question about animals' });
  ids.a1 = s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'sure' }] });
  ids.u2 = s.appendMessage({ role: 'user', content: 'tell me about the zebra on main' });
  ids.a2 = s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'stripes' }] });
  await s.close();
  const file = s.sessionRef!;
  const branch = await engine.fork(file, ids.u1!);
  assert.equal(branch.name, 'main-v2');
  ids.u3 = (await engine.appendMessage(file, { role: 'user', content: 'tell me about the zebra on the fork' } as never)).entryId;
  return { file, ids };
}

describe('engine: where a message is', () => {
  let dir: string;
  let home: string;
  let workspace: string;
  let engine: RewindEngine;
  let file: string;
  let ids: Record<string, string>;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-reveal-'));
    home = join(dir, 'home');
    workspace = join(dir, 'ws');
    await mkdir(workspace, { recursive: true });
    engine = engineFor(home, workspace);
    ({ file, ids } = await forkedSession(home, workspace, engine));
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('search hits carry the branch each message is on, and whether that is the active one', async () => {
    const hits = await engine.searchMessages('zebra');
    const byId = new Map(hits.map((h) => [h.entryId, h]));
    assert.deepEqual(
      [byId.get(ids.u2!)?.branch, byId.get(ids.u2!)?.onActiveBranch, byId.get(ids.u3!)?.branch, byId.get(ids.u3!)?.onActiveBranch],
      ['main', false, 'main-v2', true],
    );
  });

  it('a message shared by both branches is on the active one', async () => {
    const location = await engine.locateEntry(file, ids.u1!);
    assert.deepEqual(location, { found: true, onActiveBranch: true, branch: 'main-v2', activeBranch: 'main-v2', preview: 'first question about animals' });
  });

  it('a message only on another branch names that branch', async () => {
    const location = await engine.locateEntry(file, ids.a2!);
    assert.deepEqual(location, { found: true, onActiveBranch: false, branch: 'main', activeBranch: 'main-v2', preview: 'stripes' });
  });

  it('an id that is not in the session is not found (nothing thrown, nothing written)', async () => {
    assert.deepEqual(await engine.locateEntry(file, 'not-an-id'), { found: false });
  });

  it('a missing session file is a clear error', async () => {
    await assert.rejects(engine.locateEntry(join(dir, 'gone.jsonl'), ids.u1!), /not found/i);
  });
});

describe('branchOfEachEntry', () => {
  const entry = (id: string, parentId: string | null) => ({ type: 'message', id, parentId, timestamp: '' }) as SessionEntry;
  const entries = new Map([entry('r', null), entry('a', 'r'), entry('b', 'a'), entry('c', 'a')].map((e) => [e.id, e]));
  const source = { getEntry: (id: string) => entries.get(id) };

  it('gives shared ancestors to the active branch, whatever the order', () => {
    const map = branchOfEachEntry(source, [
      { name: 'one', leafId: 'b', isActive: false },
      { name: 'two', leafId: 'c', isActive: true },
    ]);
    assert.deepEqual(Object.fromEntries(map), { c: 'two', a: 'two', r: 'two', b: 'one' });
  });

  it('stops at a parent cycle and at a missing parent', () => {
    const cyclic = new Map([entry('x', 'y'), entry('y', 'x'), entry('z', 'gone')].map((e) => [e.id, e]));
    const map = branchOfEachEntry({ getEntry: (id) => cyclic.get(id) }, [
      { name: 'loop', leafId: 'x', isActive: true },
      { name: 'dangling', leafId: 'z', isActive: false },
    ]);
    assert.deepEqual(Object.fromEntries(map), { x: 'loop', y: 'loop', z: 'dangling' });
  });
});
