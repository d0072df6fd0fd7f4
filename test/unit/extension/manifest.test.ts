// package.json's contributes, checked against what the commands do: keys act only on the rows they are for, the
// palette lists only commands that work without a tree row, and every contributed command has a handler.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { hookAgents } from '../../../src/core/sources/registry';

interface Manifest {
  contributes: {
    commands: { command: string; title: string }[];
    keybindings: { command: string; key: string; when?: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
    viewsWelcome: { contents: string }[];
  };
}

const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as Manifest;
const handlers = readFileSync(new URL('../../../src/extension/commands/register-commands.ts', import.meta.url), 'utf8');
const { commands, keybindings, menus, viewsWelcome } = manifest.contributes;

describe('package.json contributes', () => {
  it('every command has a handler', () => {
    // an agent's hook commands are registered from the registry, by the ids it declares
    const agentCommands = hookAgents().flatMap((a) => (a.hookCommands ? [a.hookCommands.install, a.hookCommands.uninstall] : []));
    for (const { command } of commands) assert.ok(handlers.includes(`'${command}':`) || agentCommands.includes(command), `${command} is registered`);
  });

  it('Undo is the whole last rewind, and Redo exists', () => {
    assert.equal(commands.find((c) => c.command === 'agentRewind.undoLastRewind')?.title, 'Undo Last Rewind');
    assert.equal(commands.find((c) => c.command === 'agentRewind.redoLastRewind')?.title, 'Redo Last Rewind');
    assert.ok(keybindings.some((k) => k.command === 'agentRewind.redoLastRewind'));
  });

  it('Delete and F2 act only on a named checkpoint row of the Sessions view, never while typing', () => {
    for (const key of ['delete', 'f2']) {
      const k = keybindings.find((b) => b.key === key);
      assert.ok(k?.when, `${key} has a when clause`);
      for (const part of ['focusedView == agentRewind.sessions', 'listFocus', '!inputFocus', 'agentRewind.focusedItem == checkpoint.named']) {
        assert.ok(k.when.includes(part), `${key}: "${k.when}" includes ${part}`);
      }
    }
  });

  it('the palette hides the commands that only work on a tree row or a webview button', () => {
    const hidden = new Set((menus.commandPalette ?? []).filter((m) => m.when === 'false').map((m) => m.command));
    for (const c of ['agentRewind.showBranch', 'agentRewind.compareWithBranch', 'agentRewind.continueInAgent']) assert.ok(hidden.has(c), c);
    // …and nothing the palette can run by asking (they pick a session, branch or message themselves).
    for (const c of ['agentRewind.undoLastRewind', 'agentRewind.redoLastRewind', 'agentRewind.rewindToHere', 'agentRewind.switchBranch'])
      assert.ok(!hidden.has(c), c);
  });

  it('"Add session folders" opens the setting where this window can edit it (machine-overridable)', () => {
    const link = viewsWelcome[0]!.contents.match(/\[Add session folders\]\(command:([\w.]+)/)?.[1];
    assert.equal(link, 'agentRewind.openSessionFoldersSetting');
    assert.match(handlers, /openWorkspaceSettings/);
    assert.match(handlers, /openRemoteSettings/);
  });

  it('ships every worker bundle the extension starts (a .vscodeignore that left one out would break the installed extension only)', () => {
    const ignore = readFileSync(new URL('../../../.vscodeignore', `file://${__filename}`), 'utf8').split('\n');
    const shipped = new Set(ignore.filter((l) => l.startsWith('!dist/')).map((l) => l.slice(1)));
    const extension = readFileSync(new URL('../../../src/extension/agent-rewind-extension.ts', `file://${__filename}`), 'utf8');
    const workers = [...extension.matchAll(/new Worker\(join\(__dirname, '([\w-]+\.js)'\)\)/g)].map((m) => `dist/${m[1]}`);
    assert.ok(workers.length >= 2, `found the workers: ${workers.join(', ')}`);
    for (const w of workers) assert.ok(shipped.has(w), `${w} is listed in .vscodeignore`);
  });
});
