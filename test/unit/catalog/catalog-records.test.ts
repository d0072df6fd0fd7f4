import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Conversation } from '../../../src/core/branches/conversation';
import { Catalog } from '../../../src/core/catalog';
import { SnapshotRecords } from '../../../src/core/files/snapshot-records';
import { SessionManager } from '../../../src/core/session/session-manager';
import { fingerprint } from './catalog-fixture';

describe('catalog: branches, named and file checkpoints of an agent-rewind session', () => {
  let dir: string;
  let home: string;
  let store: string;
  let file: string;
  const workspace = '/work/project-catalog';
  const ids: Record<string, string> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-catalog-records-'));
    home = join(dir, 'home');
    store = join(dir, 'store');
    const s = SessionManager.create(workspace, { home, title: 'Parser work', deferUntilAssistant: false });
    const conv = new Conversation(s);
    ids.u1 = s.appendMessage({ role: 'user', content: 'write the date parser' });
    ids.a1 = s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'parser written with regexes' }] });
    ids.u2 = s.appendMessage({ role: 'user', content: 'now add timezone support' });
    ids.a2 = s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'timezones done' }] });
    await conv.checkpoint('regex-version');
    ids.branch = (await conv.rewind(ids.u1)).name;
    ids.a3 = s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'parser written with a grammar instead' }] });
    await s.close();
    file = s.sessionRef!;
    await new SnapshotRecords(store).put({
      v: 1,
      sessionId: s.sessionId,
      anchorId: ids.u2,
      kind: 'user-message',
      root: 'a'.repeat(64),
      createdAt: '2026-01-01T00:00:00.000Z',
      files: 3,
      totalBytes: 10,
    });
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('stores branches, checkpoints and the branch of each message, and writes nothing to the session folder', async () => {
    const before = await fingerprint(dirname(file));
    await mkdir(home, { recursive: true });
    const catalog = await Catalog.open({ home, fileCheckpointStore: (cwd) => (cwd === workspace ? store : undefined) });
    try {
      assert.deepEqual(await catalog.refresh([{ path: dirname(file), source: 'agent-rewind' }]), { indexed: 1, removed: 0, unchanged: 0, failed: [] });
      const [session] = catalog.listSessions(workspace);
      assert.equal(session!.title, 'Parser work');
      assert.equal(session!.source, 'agent-rewind');
      assert.equal(session!.activeBranch, ids.branch);
      assert.equal(session!.fileVersion, 3);

      const branches = catalog.branchesOf(file);
      assert.deepEqual(
        branches.map((b) => [b.name, b.active, b.headEntryId, b.messageCount]),
        [
          ['main', false, ids.a2, 4],
          [ids.branch, true, ids.a3, 2],
        ],
      );
      assert.deepEqual(
        catalog.checkpointsOf(file).map((c) => [c.kind, c.name, c.entryId, c.files]),
        [
          ['named', 'regex-version', ids.a2, undefined],
          ['file', 'now add timezone support', ids.u2, 3],
        ],
      );
      // the shared first message is shown on the active branch; the old tail stays on main
      const branchOf = (q: string) => catalog.search(q).map((h) => [h.entryId, h.branch]);
      assert.deepEqual(branchOf('"date parser"'), [[ids.u1, ids.branch]]);
      assert.deepEqual(branchOf('timezones'), [[ids.a2, 'main']]);
      assert.deepEqual(branchOf('grammar'), [[ids.a3, ids.branch]]);
      // custom records (branch moves, checkpoints) are not messages
      assert.deepEqual(catalog.search('regex-version'), []);
    } finally {
      await catalog.close();
    }
    assert.deepEqual(await fingerprint(dirname(file)), before);
  });

  it('lists only the sessions of the asked working folder or session folders', async () => {
    const catalog = await Catalog.open({ home });
    try {
      assert.equal(catalog.listSessions('/somewhere/else').length, 0);
      assert.equal(catalog.listSessions(workspace).length, 1);
      assert.equal(catalog.search('parser', { cwd: '/somewhere/else' }).length, 0);
      assert.equal(catalog.search('parser', { cwd: workspace }).length, 3);
      assert.equal(catalog.listSessions({ folders: [dirname(file)] }).length, 1);
      assert.equal(catalog.listSessions({ folders: [] }).length, 0);
      assert.equal(catalog.search('parser', { folders: [dirname(file)] }).length, 3);
      assert.equal(catalog.search('parser', { folders: [dir] }).length, 0);
      assert.equal(catalog.search('parser', { cwd: '/somewhere/else', folders: [dirname(file)] }).length, 3);
    } finally {
      await catalog.close();
    }
  });
});
