import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tempConfigDir } from './builder';

// Every reader test takes one of these: left behind, a run of the suite left dozens of folders in the temp dir.
test('a temp Claude config folder is gone once the test that took it has ended', async (t) => {
  let dir = '';
  await t.test('takes one', (inner) => {
    dir = tempConfigDir(inner);
    assert.ok(existsSync(dir));
  });
  assert.ok(dir);
  assert.equal(existsSync(dir), false);
});
