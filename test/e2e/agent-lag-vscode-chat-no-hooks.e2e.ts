// The request-to-snapshot lag of VS Code chat without agent-rewind's hooks (support/chat-lag.ts says how it is
// measured): the extension snapshots a request when it appears in VS Code's chat log, late, and records how late.
// `npm run test:e2e -- lag-vscode-chat` (with the hooks file) or `npm run bench -- lag-vscode-chat`.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { LAG_REQUESTS, measure, writeLagFigures } from './support/chat-lag';

describe('VS Code chat: request-to-snapshot lag without hooks (code-server 4.139.1, agent mode, scripted model)', () => {
  it('the extension snapshots each request when it appears in the log, under its request id, and records how late', async () => {
    const run = await measure('no-hooks');
    console.log(`vscode-chat lag: figures in ${writeLagFigures(run)}`);
    assert.equal(run.samples.length, LAG_REQUESTS);
    for (const s of run.samples)
      if (s.snapshotAtMs !== undefined) {
        assert.equal(s.anchor, s.requestId, `${s.marker}: stored under the request id`);
        assert.ok(s.lateTakenAtMs !== undefined, `${s.marker}: its lateness recorded for the preview`);
      }
    // VS Code may write two requests in one go; the fallback then snapshots only the newer: most, not all
    const taken = run.samples.filter((s) => s.snapshotAtMs !== undefined).length;
    assert.ok(taken >= Math.ceil(LAG_REQUESTS / 2), `${taken} of ${LAG_REQUESTS} requests snapshotted`);
  });
});
