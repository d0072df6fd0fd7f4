// package.json's contributes, checked against what the commands do: keys act only on the rows they are for, the
// palette lists only commands that work without a tree row, and every contributed command has a handler.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { hookAgents } from '../../../src/core/sources/registry';
import { THREADS } from '../../../src/core/files/workers/thread-start';

interface Manifest {
  contributes: {
    commands: { command: string; title: string }[];
    keybindings: { command: string; key: string; when?: string }[];
    menus: Record<string, { command: string; when?: string; group?: string }[]>;
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

  it("the view's … menu lists Undo above Redo (VS Code sorts a group's items by their order, else by title)", () => {
    const order = (command: string) => {
      const group = menus['view/title']!.find((m) => m.command === command)?.group ?? '';
      return { group: group.split('@')[0], at: Number(group.split('@')[1] ?? NaN) };
    };
    const undo = order('agentRewind.undoLastRewind');
    const redo = order('agentRewind.redoLastRewind');
    assert.equal(undo.group, redo.group);
    assert.ok(undo.at < redo.at, `undo @${undo.at} before redo @${redo.at}`);
  });

  it('the active branch row does not offer to switch to itself', () => {
    const switches = Object.values(menus)
      .flat()
      .filter((m) => m.command === 'agentRewind.switchBranch' && m.when?.includes('viewItem'));
    assert.ok(switches.length > 0);
    for (const m of switches) {
      const pattern = new RegExp(m.when!.match(/viewItem =~ \/(.+?)\/(?: |$)/)![1]!);
      assert.ok(pattern.test('branch'), m.when);
      assert.ok(!pattern.test('branch.active'), `${m.when} leaves the active branch out`);
    }
  });

  it("the empty view's primary button sets up Claude Code checkpoints (the first line that is only a link is the primary button)", () => {
    const buttons = viewsWelcome[0]!.contents.split('\n').filter((line) => /^\[[^\]]+\]\(command:[\w.]+\)$/.test(line.trim()));
    assert.match(buttons[0] ?? '', /\(command:agentRewind\.installClaudeHooks\)/);
    assert.equal(buttons.length, 1, 'Refresh and the folders setting are links, not competing buttons');
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
    const workers = [...extension.matchAll(/new Worker\(join\(__dirname, '([\w-]+\.js)'\)[,)]/g)].map((m) => `dist/${m[1]}`);
    assert.ok(workers.length >= 2, `found the workers: ${workers.join(', ')}`);
    for (const w of workers) assert.ok(shipped.has(w), `${w} is listed in .vscodeignore`);
  });

  it('builds and ships every thread the checkpointer starts (src/core/files/workers/thread-start.ts), beside the bundles that start them', () => {
    const ignore = readFileSync(new URL('../../../.vscodeignore', `file://${__filename}`), 'utf8').split('\n');
    const build = readFileSync(new URL('../../../scripts/build.mjs', `file://${__filename}`), 'utf8');
    for (const name of THREADS) {
      assert.ok(ignore.includes(`!dist/${name}.js`), `dist/${name}.js is listed in .vscodeignore`);
      assert.ok(build.includes(`'${name}'`), `scripts/build.mjs builds ${name}`);
    }
  });
});
