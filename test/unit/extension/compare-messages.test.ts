// A session with one branch compares with its forks and the workspace's other sessions (compare-target.ts); with
// none of those, the message says both halves of why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nothingToCompareMessage } from '../../../src/extension/commands/compare-messages';

describe('nothing to compare', () => {
  it('names the session and says there is neither a second branch nor another session', () => {
    assert.equal(
      nothingToCompareMessage('Calc'),
      'Agent Rewind: "Calc" has only one branch and this workspace has no other session, so there is nothing to compare it with.',
    );
  });
});
