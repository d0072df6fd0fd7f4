// The rewind log names sessions by their refs (`sessionRef`, `forkRef`); logs written before that called them
// `sessionFile` and `forkFile`. An upgrade must not lose what Undo and Redo need.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RewindLog } from '../../../src/core/engine/rewind-log';

describe('the rewind log across the rename of session files to refs', () => {
  const dirs: string[] = [];
  after(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('reads a log written with sessionFile and forkFile as refs, and writes it back with the new names', async () => {
    const home = await mkdtemp(join(tmpdir(), 'ar-log-refs-'));
    dirs.push(home);
    const log = new RewindLog(home);
    // Where the log lives is the log's own business: let it make the file, then replace it by an old one.
    await log.write('/w', { v: 2, folder: '/w', undo: [], redo: [] });
    const [name] = (await readdir(join(home, 'rewind-log'))).filter((n) => n.endsWith('.json'));
    const old = {
      id: 's1',
      sessionFile: '/sessions/a.jsonl',
      sessionId: 'a',
      forkFile: '/sessions/b.jsonl',
      forkSessionId: 'b',
      anchorEntryId: 'u1',
      mode: 'all',
      files: true,
      undoDepth: 1,
      at: '2026-01-01T00:00:00.000Z',
    };
    await writeFile(join(home, 'rewind-log', name!), JSON.stringify({ v: 2, folder: '/w', undo: [old], redo: [{ ...old, id: 's2', forkFile: undefined }] }));

    const read = await log.read('/w');
    assert.equal(read.undo.length, 1, 'the old step is kept, not dropped as unreadable');
    assert.equal(read.undo[0]!.sessionRef, '/sessions/a.jsonl');
    assert.equal(read.undo[0]!.forkRef, '/sessions/b.jsonl');
    assert.equal(read.redo[0]!.sessionRef, '/sessions/a.jsonl');
    assert.equal(read.redo[0]!.forkRef, undefined);

    await log.write('/w', read);
    const text = await readFile(join(home, 'rewind-log', name!), 'utf8');
    assert.match(text, /"sessionRef":"\/sessions\/a.jsonl"/);
    assert.doesNotMatch(text, /sessionFile|forkFile/);
  });
});
