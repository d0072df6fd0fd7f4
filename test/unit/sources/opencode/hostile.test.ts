// The OpenCode reader never leaves OpenCode's folder and never blocks: a FIFO in place of opencode.db, its -wal or a
// JSON file is not opened for reading (a guard opens each FIFO for writing after 5 s, so a reader that blocked fails
// the test instead of hanging it); a link in the storage tree, to a file or a folder, is not followed (a decoy outside
// has its access time primed, so reading it would show); JSON nested without bound is kept as text; paths named in a
// session (a patch's files) are only shown.
import assert from 'node:assert/strict';
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listOpenCodeSessions, readOpenCodeSession } from '../../../../src/core/sources/opencode/reader';
import { guardFifo, makeFifo, primeAtime, type FifoGuard } from '../../../support/fifo-guard';
import { assistantMessage, ocId, userMessage, writeJsonLayout, type TestSession } from './builder';

const session = (): TestSession => {
  const u = userMessage('hello');
  return { id: ocId('ses'), directory: '/w', title: 't', messages: [u, assistantMessage(u.id, [{ type: 'text', text: 'hi' }])] };
};

describe('OpenCode reader on hostile data', { skip: process.platform === 'win32' ? 'FIFOs and symlinks' : false }, () => {
  let dir: string;
  const guards: FifoGuard[] = [];
  const guarded = (path: string): FifoGuard => {
    makeFifo(path);
    const g = guardFifo(path);
    guards.push(g);
    return g;
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-opencode-hostile-'));
  });
  after(async () => {
    guards.forEach((g) => g.dispose());
    await rm(dir, { recursive: true, force: true });
  });

  it('a FIFO as opencode.db or as its -wal is refused at once (a warning), and the JSON sessions are still listed', async () => {
    for (const name of ['opencode.db', 'opencode.db-wal']) {
      const d = join(dir, `fifo-${name}`);
      const s = session();
      writeJsonLayout(d, s);
      if (name === 'opencode.db-wal') writeFileSync(join(d, 'opencode.db'), '');
      const g = guarded(join(d, name));
      const warnings: string[] = [];
      const listed = await listOpenCodeSessions(d, (w) => warnings.push(w));
      assert.deepEqual(
        listed.map((l) => l.id),
        [s.id],
      );
      assert.equal(warnings.length, 1, name);
      assert.match(warnings[0]!, /not a regular file|not a readable SQLite database/);
      await assert.rejects(readOpenCodeSession(d, s.id, 'ref'), /not a regular file|not a readable SQLite database/);
      assert.equal(g.fired(), false, `${name} was opened for reading`);
    }
  });

  it('links in the storage tree are not followed, to a file or to a folder; a FIFO part is passed over', async () => {
    const d = join(dir, 'links');
    const s = session();
    writeJsonLayout(d, s);
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    // a session file linked to a decoy outside
    const decoy = join(outside, 'decoy.json');
    const linked = session();
    writeFileSync(decoy, JSON.stringify({ id: linked.id, directory: '/w', title: 'decoy', time: { created: 1 } }));
    const primed = primeAtime(decoy);
    symlinkSync(decoy, join(d, 'storage', 'session', 'proj', `${linked.id}.json`));
    // a message folder linked to a folder outside holding a message
    const outMessages = join(outside, 'messages');
    mkdirSync(outMessages);
    const m = userMessage('from outside');
    const other = session();
    writeFileSync(join(outMessages, `${m.id}.json`), JSON.stringify({ id: m.id, sessionID: other.id, ...m.data }));
    writeJsonLayout(d, { ...other, messages: [] });
    symlinkSync(outMessages, join(d, 'storage', 'message', other.id));
    // a FIFO where a part goes
    const g = guarded(join(d, 'storage', 'part', s.messages[1]!.id, `${ocId('prt')}.json`));

    assert.deepEqual((await listOpenCodeSessions(d)).map((l) => l.id).sort(), [s.id, other.id].sort());
    assert.equal(statSync(decoy).atimeMs, primed, 'the decoy was not read');
    assert.equal(await readOpenCodeSession(d, linked.id, 'ref'), undefined);
    assert.equal((await readOpenCodeSession(d, other.id, 'ref'))!.getEntries().length, 0, 'the linked message folder is not read');
    assert.equal((await readOpenCodeSession(d, s.id, 'ref'))!.getEntries().length, 2);
    assert.equal(g.fired(), false, 'the FIFO was opened for reading');
  });

  it('JSON nested without bound is kept as text; a patch naming paths outside only shows them', async () => {
    const d = join(dir, 'deep');
    const u = userMessage('go');
    const s: TestSession = {
      id: ocId('ses'),
      directory: '/w',
      messages: [
        u,
        assistantMessage(u.id, [
          { type: 'tool', tool: 'bash', callID: 'c1', state: { status: 'completed', input: { command: 'x', deep: 'DEEP' }, output: 'ok' } },
          { type: 'patch', hash: 'h', files: ['/etc/passwd', '../../outside.txt'] },
        ]),
      ],
    };
    writeJsonLayout(d, s);
    // the tool part's input nested 100,000 deep, as text (no JSON.stringify of ours could write it)
    const a = s.messages[1]!;
    const tool = a.parts[0]!;
    const file = join(d, 'storage', 'part', a.id, `${tool.id}.json`);
    const text = JSON.stringify({ id: tool.id, sessionID: s.id, messageID: a.id, ...tool.data }).replace('"DEEP"', '['.repeat(100_000) + ']'.repeat(100_000));
    writeFileSync(file, text);
    const view = (await readOpenCodeSession(d, s.id, 'ref'))!;
    assert.deepEqual(view.getLoadReport().skipped, []);
    const texts = JSON.stringify(view.getEntries());
    assert.ok(texts.length > 200_000, 'the deep value is kept, as text');
    assert.match(texts, /Files changed:\\n\/etc\/passwd\\n\.\.\/\.\.\/outside\.txt/);
  });
});
