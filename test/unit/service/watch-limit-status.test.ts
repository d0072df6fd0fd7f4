// The service past the system's watch limit: it says so once in its log (and to whoever shows it to the user, the
// extension's notification), and its status (the ping's answer) names the folder, how many of its folders are not
// watched, and the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointService, secretPath } from '../../../src/core/service';
import { PROTOCOL_VERSION, type PingValue } from '../../../src/core/service/protocol';
import { WATCH_LIMIT_FIX } from '../../../src/core/files';
import { tempBase, writeTree } from '../files/helpers';

test('past the watch limit the service logs it once, tells the user once, and its status says which folder and the fix', async () => {
  const base = await tempBase('arw-svc-watch-limit-');
  const home = join(base.dir, 'home');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a/f.txt': 'a\n', 'a/b/f.txt': 'ab\n', 'c/d/f.txt': 'cd\n' });
  const logs: string[] = [];
  const told: [string, number][] = [];
  const service = new CheckpointService({
    home,
    workspaces: [ws],
    checkpointer: { tuning: { watchLimit: 2 } },
    log: (m) => logs.push(m),
    onWatchLimit: (workspace, report) => told.push([workspace, report.folders]),
  });
  try {
    await service.start();
    const secret = (await readFile(secretPath(home), 'utf8')).trim();
    const ping = async () => {
      const r = await service.handleLine(JSON.stringify({ v: PROTOCOL_VERSION, id: 1, secret, deadline: Date.now() + 10_000, method: 'ping' }));
      assert.ok(r.ok, JSON.stringify(r));
      return (r as { value: PingValue }).value;
    };
    const status = await ping();
    assert.equal(status.watchLimit?.length, 1, JSON.stringify(status));
    const [entry] = status.watchLimit!;
    assert.equal(entry!.workspace, realpathSync(ws));
    assert.ok(entry!.folders >= 2, `folders not watched: ${entry!.folders}`);
    assert.ok(entry!.message.includes(WATCH_LIMIT_FIX), entry!.message);
    assert.deepEqual(told, [[realpathSync(ws), entry!.folders]], 'told once');
    assert.equal(logs.filter((l) => l.includes(WATCH_LIMIT_FIX)).length, 1, logs.join('\n'));
  } finally {
    await service.stop();
    await base.cleanup();
  }
});

test('a service whose folders are all watched says nothing about the limit', async () => {
  const base = await tempBase('arw-svc-watch-ok-');
  const home = join(base.dir, 'home');
  const ws = join(base.dir, 'ws');
  await writeTree(ws, { 'a/f.txt': 'a\n' });
  const logs: string[] = [];
  const service = new CheckpointService({ home, workspaces: [ws], log: (m) => logs.push(m) });
  try {
    await service.start();
    const secret = (await readFile(secretPath(home), 'utf8')).trim();
    const r = await service.handleLine(JSON.stringify({ v: PROTOCOL_VERSION, id: 1, secret, deadline: Date.now() + 10_000, method: 'ping' }));
    assert.ok(r.ok && !('watchLimit' in (r.value as object)), JSON.stringify(r));
    assert.deepEqual(logs, []);
  } finally {
    await service.stop();
    await base.cleanup();
  }
});
