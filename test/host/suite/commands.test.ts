/// <reference types="mocha" />
// Runs inside real VS Code's extension host (see test/host/runner): the extension activates and every agreed
// command is registered.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'agent-rewind.agent-rewind';

const AGREED_COMMANDS = [
  'agentRewind.refresh',
  'agentRewind.openTranscript',
  'agentRewind.rewindToHere',
  'agentRewind.switchBranch',
  'agentRewind.restoreCheckpoint',
  'agentRewind.renameCheckpoint',
  'agentRewind.deleteCheckpoint',
  'agentRewind.createCheckpoint',
  'agentRewind.revealSessionFile',
  'agentRewind.undoLastRewind',
  'agentRewind.searchSessions',
  'agentRewind.forkFromMessage',
  'agentRewind.labelMessage',
];

describe('extension host: activation and commands', () => {
  it('activates without error', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('registers every agreed command', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = AGREED_COMMANDS.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `commands not registered: ${missing.join(', ')}`);
  });

  it('contributes the agreed commands under the "Agent Rewind" category', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    const contributed = (ext?.packageJSON.contributes?.commands ?? []) as { command: string; category?: string }[];
    for (const id of AGREED_COMMANDS) {
      const c = contributed.find((x) => x.command === id);
      assert.ok(c, `${id} is contributed`);
      assert.equal(c.category, 'Agent Rewind', `${id} category`);
    }
  });
});
