// Two processes (here: two opens racing in one process, which interleave the same way) open one old-format pi file.
// Each used to migrate it on its own, giving the v1 entries different random ids, and the last atomic rewrite won: the
// other kept ids that were no longer in the file, so its next append hung off a parent that did not exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SessionManager } from '../../../src/core/session/session-manager';

const V1 = resolve(__dirname, '../../../../shared/fixtures/pi/before-compaction.v1.jsonl');

test('two sessions opening one v1 file at once agree on its migrated ids; appends from both chain onto real entries', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-qa-migrate-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'old.jsonl');
  copyFileSync(V1, file);
  const [a, b] = await Promise.all([
    SessionManager.open(file, { home: dir, deferUntilAssistant: false }),
    SessionManager.open(file, { home: dir, deferUntilAssistant: false }),
  ]);
  assert.deepEqual(
    a.getEntries().map((e) => e.id),
    b.getEntries().map((e) => e.id),
    'both see the same ids',
  );
  const fromA = await a.transaction((s) => s.appendMessage({ role: 'user', content: 'from a' }));
  const fromB = await b.transaction((s) => s.appendMessage({ role: 'user', content: 'from b' }));
  await a.close();
  await b.close();
  const reloaded = await SessionManager.open(file, { home: dir });
  const ids = new Set(reloaded.getEntries().map((e) => e.id));
  assert.ok(ids.has(fromA) && ids.has(fromB));
  const orphans = reloaded.getEntries().filter((e) => e.parentId !== null && !ids.has(e.parentId));
  assert.deepEqual(
    orphans.map((e) => e.id),
    [],
  );
  assert.equal(reloaded.getEntry(fromB)!.parentId, fromA);
});
