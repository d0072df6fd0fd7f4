// Which folder a session's files are snapshotted and restored in: its own, when it is open here or inside an open
// folder (an agent started in a sub-project); never a folder outside the open ones.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CheckpointerPool } from '../../../src/core/engine/checkpointer-pool';
import { parseSettings } from '../../../src/core/settings/settings';

test('a session folder that is open, inside an open one, or outside all of them', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ar-pool-'));
  const ws = join(dir, 'ws');
  const sub = join(ws, 'packages', 'api');
  await mkdir(sub, { recursive: true });
  await mkdir(join(dir, 'elsewhere'));
  const pool = new CheckpointerPool(
    parseSettings((k) => (k === 'home' ? join(dir, 'home') : undefined), {}),
    [ws],
  );
  try {
    assert.equal(pool.rootFor(ws), ws);
    assert.equal(pool.rootFor(sub), sub);
    assert.equal(pool.forCwd(sub)?.workspaceRoot, sub);
    assert.equal(pool.rootFor(join(dir, 'elsewhere')), undefined);
    assert.equal(pool.rootFor(dir), undefined, 'a folder above the open one is not inside it');
    assert.equal(pool.forCwd(join(dir, 'elsewhere')), undefined);
  } finally {
    await pool.dispose();
    await rm(dir, { recursive: true, force: true });
  }
});
