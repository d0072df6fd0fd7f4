import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SessionCache, SessionNotFoundError } from '../../../src/core/sources/pi/session-cache';
import { SessionManager } from '../../../src/core/session/session-manager';

describe('session cache', () => {
  it('keeps one session per file, reads appends, rereads a rewritten file and forgets a deleted one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ar-cache-'));
    const cache = new SessionCache(join(dir, 'home'), 2);
    try {
      const made = SessionManager.create(dir, { home: join(dir, 'home'), deferUntilAssistant: false });
      const first = made.appendMessage({ role: 'user', content: 'one' });
      await made.close();
      const file = made.sessionRef!;

      const a = await cache.get(file);
      assert.equal(await cache.get(file), a, 'the same instance while the file only grows');
      await appendFile(
        file,
        JSON.stringify({ type: 'message', id: 'ext00001', parentId: first, timestamp: new Date().toISOString(), message: { role: 'user', content: 'two' } }) +
          '\n',
      );
      assert.equal((await cache.get(file)).getLeafId(), 'ext00001', 'appends by others are read in');

      const lines = (await import('node:fs')).readFileSync(file, 'utf8').split('\n');
      await writeFile(file, lines.slice(0, 2).join('\n') + '\n');
      const reread = await cache.get(file);
      assert.notEqual(reread, a, 'a shorter file is read again from scratch');
      assert.equal(reread.getLeafId(), first);

      await unlink(file);
      await assert.rejects(cache.get(file), SessionNotFoundError);
    } finally {
      await cache.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('closes the least recently used sessions beyond its limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ar-cache-'));
    const cache = new SessionCache(join(dir, 'home'), 2);
    try {
      const files: string[] = [];
      for (let i = 0; i < 3; i++) {
        const s = SessionManager.create(dir, { home: join(dir, 'home'), deferUntilAssistant: false });
        s.appendMessage({ role: 'user', content: `s${i}` });
        await s.close();
        files.push(s.sessionRef!);
      }
      const s0 = await cache.get(files[0]!);
      const s1 = await cache.get(files[1]!);
      assert.equal(await cache.get(files[0]!), s0, 'using s0 again makes s1 the oldest');
      // the eviction of s1 takes it out of the cache at once (its close may still be running): nothing to wait for
      await cache.get(files[2]!);
      assert.equal(await cache.get(files[0]!), s0, 's0 stayed open');
      assert.notEqual(await cache.get(files[1]!), s1, 's1 was closed and is opened afresh');
    } finally {
      await cache.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
