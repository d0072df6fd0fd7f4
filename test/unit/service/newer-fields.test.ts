// A service that runs older code (started by an earlier version, still within its idle time) refuses a request that
// carries a field it does not know yet: the client then does the work itself, as for another protocol, instead of
// failing the user's rewind. The refusal is the real server's, for a request this version's client would send plus
// one field this version does not know.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { CheckpointService, checkpointOptionsKey, readSecret, socketPath } from '../../../src/core/service';
import { nothingDone, ServiceRefusal } from '../../../src/core/service/client';
import { cliCheckpointerOptions } from '../../../src/core/settings/settings-file';
import { tempBase, writeTree } from '../files/helpers';

test('a field the service does not know is refused before anything is done, and the client may do it itself', async () => {
  const base = await tempBase('arw-newer-fields-');
  const home = join(base.dir, 'home');
  await writeTree(join(base.dir, 'ws'), { 'a.txt': 'one\n' });
  const ws = realpathSync(join(base.dir, 'ws'));
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'config.json'), '{}\n');
  const options = (root: string) => cliCheckpointerOptions(home, root, () => {});
  const service = new CheckpointService({ home, workspaces: [ws], checkpointer: options });
  await service.start();
  try {
    const secret = await readSecret(home);
    const send = (fields: object) =>
      new Promise<{ ok: boolean; code?: string; message?: string }>((resolve, reject) => {
        const s = createConnection(socketPath(home));
        let buf = '';
        s.on('error', reject);
        s.on('connect', () =>
          s.write(
            JSON.stringify({
              v: 2,
              id: 1,
              secret,
              workspace: ws,
              optionsKey: checkpointOptionsKey(options(ws), ws),
              deadline: Date.now() + 20_000,
              ...fields,
            }) + '\n',
          ),
        );
        s.on('data', (c) => {
          buf += c.toString();
          if (buf.includes('\n')) {
            s.destroy();
            resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))));
          }
        });
      });
    const snapshot = { method: 'snapshot', sessionId: 's', anchorId: 'u1', kind: 'user-message' };
    const newerTop = await send({ ...snapshot, aFieldFromLater: true });
    const dryRun = {
      method: 'rewindFiles',
      sessionId: 's',
      anchorId: 'u1',
      opts: { dryRun: true, anchor: { checkpointingEnabled: true, kind: 'user-message' } },
    };
    const newerNested = await send({ ...dryRun, opts: { ...dryRun.opts, aFieldFromLater: 1 } });
    for (const r of [newerTop, newerNested]) {
      assert.equal(r.ok, false);
      assert.equal(r.code, 'bad-request', r.message);
      assert.ok(nothingDone(new ServiceRefusal('bad-request', r.message!)), `the client falls back on: ${r.message}`);
    }
    // a request that is wrong in itself is not handed to this process: the refusal says what is wrong
    const wrong = await send({ ...snapshot, kind: 'no-such-kind' });
    assert.equal(wrong.code, 'bad-request');
    assert.equal(nothingDone(new ServiceRefusal('bad-request', wrong.message!)), false);
    assert.equal((await send(snapshot)).ok, true, 'the same request without the field is served');
  } finally {
    await service.stop();
    await base.cleanup();
  }
});
