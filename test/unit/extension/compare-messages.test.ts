// A session with one branch cannot be compared; when it has forks (or is one), the message says where the other
// conversation is instead of only "has only one branch".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onlyOneBranchMessage } from '../../../src/extension/commands/compare-messages';

describe('nothing to compare', () => {
  it('points to the forks of an original, or the origin of a fork', () => {
    assert.equal(onlyOneBranchMessage('Calc', 0), 'Agent Rewind: "Calc" has only one branch, so there is nothing to compare it with.');
    assert.match(onlyOneBranchMessage('Calc', 2), /Its 2 forks are separate sessions \(under Forks in the Sessions view\)/);
    assert.match(onlyOneBranchMessage('Calc', 1), /Its fork is a separate session/);
    assert.match(onlyOneBranchMessage('Fork: Calc', 0, 'Calc'), /It is a fork of "Calc", a separate session/);
  });
});
