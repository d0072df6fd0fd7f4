// The request-to-snapshot lag of VS Code chat with agent-rewind's hooks installed (support/chat-lag.ts says how it is
// measured): every request's snapshot is taken by the UserPromptSubmit hook before the model is called.
// `npm run test:e2e -- lag-vscode-chat` (with the no-hooks file) or `npm run bench -- lag-vscode-chat`.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { LAG_REQUESTS, measure, writeLagFigures } from './support/chat-lag';

describe('VS Code chat: request-to-snapshot lag with our hooks (code-server 4.139.1, agent mode, scripted model)', () => {
  it('every request has a snapshot, taken before the model was called for it', async () => {
    const run = await measure('hooks');
    console.log(`vscode-chat lag: figures in ${writeLagFigures(run)}`);
    assert.equal(run.samples.length, LAG_REQUESTS);
    for (const s of run.samples) {
      assert.ok(s.snapshotAtMs !== undefined && s.anchor?.startsWith('prompt-'), `${s.marker}: a hook snapshot (${JSON.stringify(s)})`);
      const first = Math.min(...s.modelCalls.map((c) => c.atMs));
      assert.ok(s.snapshotAtMs < first, `${s.marker}: the snapshot (${s.snapshotAtMs}) before the model's first call (${first})`);
    }
  });
});
