// Issue 21: the extension set up hooks only for agents with a command of their own in package.json (the built-in
// ones), so an agent loaded from agentRewind.agentModules (here the test tree's toy agent) could not get its hooks
// from the extension. "Set Up Agent Checkpoints…" lists every registered agent with hooks; the tree's "set up"
// hint of such an agent's session runs it with the agent's id; the launcher the extension writes hands the modules it
// loaded to the CLI it starts (the set-up itself, and the agent's hooks later).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { agents, registerAgent, unregisterAgent } from '../../../src/core/sources/registry';
import { launcherScript } from '../../../src/core/service/launcher-script';
import { chooseHookAgent, hookAgentIdOf } from '../../../src/extension/commands/hook-agent-target';
import type { PickRow } from '../../../src/extension/commands/compare-target';
import { rootNodes, SetUpHooksNode } from '../../../src/extension/tree/nodes';
import type { AgentAdapter } from '../../../src/core/sources/agent';
import { agent as toy } from '../../support/toy-agent/agent';

class Picker {
  asked: PickRow<AgentAdapter>[][] = [];
  said: string[] = [];
  constructor(private readonly choose: (rows: PickRow<AgentAdapter>[]) => PickRow<AgentAdapter> | undefined) {}
  async pick<T>(rows: PickRow<T>[]): Promise<T | undefined> {
    this.asked.push(rows as unknown as PickRow<AgentAdapter>[]);
    return this.choose(rows as unknown as PickRow<AgentAdapter>[])?.value as T | undefined;
  }
  inform(message: string): void {
    this.said.push(message);
  }
}

describe('Set Up Agent Checkpoints…: every registered agent with hooks', () => {
  const all = () => [...agents().filter((a) => a.id !== toy.id), toy];

  it('lists the built-in agents with hooks and a loaded one, and sets up the one picked', async () => {
    const ui = new Picker((rows) => rows.find((r) => /Toy Agent/.test(r.label)));
    const picked = await chooseHookAgent(all(), undefined, 'install', ui);
    assert.equal(picked, toy);
    const labels = ui.asked[0]!.map((r) => r.label);
    assert.ok(labels.includes('$(beaker) Toy Agent'), labels.join(', '));
    assert.ok(
      labels.some((l) => /Claude Code/.test(l)),
      labels.join(', '),
    );
    assert.ok(!labels.some((l) => /\bpi\b/.test(l)), 'an agent without hooks is not offered');
  });

  it('takes the agent an argument names ({ agent: id } or the id), refuses an unknown one, asks nothing for one agent', async () => {
    const none = new Picker(() => assert.fail('nothing should be asked'));
    assert.equal(await chooseHookAgent(all(), { agent: 'toy' }, 'install', none), toy);
    assert.equal(await chooseHookAgent(all(), 'toy', 'uninstall', none), toy);
    await assert.rejects(chooseHookAgent(all(), { agent: 'nope' }, 'install', none), /there is no agent "nope" with hooks \(agents with hooks: .*toy/);
    assert.equal(await chooseHookAgent([toy], undefined, 'install', none), toy);
    assert.equal(await chooseHookAgent([], undefined, 'install', none), undefined);
    assert.deepEqual(none.said, ['Agent Rewind: no agent with hooks is registered.']);
    assert.equal(hookAgentIdOf({ agent: 7 }), undefined);
  });
});

describe("the Sessions tree's set-up hint for a loaded agent", () => {
  after(() => unregisterAgent(toy.id));

  it('runs the generic command with the agent id (the agent has no command of its own)', async () => {
    registerAgent(toy);
    const listing = { sessionRef: '/toy/t1.toydb', sessionId: 't1', title: 'Toy session', source: 'toy', modifiedMs: 0 };
    const [session] = await rootNodes({
      listSessions: async () => [listing],
      describeSession: async () => ({ listing, branches: [], namedCheckpoints: [], fileCheckpoints: [], problems: [] }),
    });
    const hint = (await session!.getChildren()).find((c) => c instanceof SetUpHooksNode);
    assert.ok(hint, 'a toy session without snapshots offers to set up its hooks');
    const command = hint.toTreeItem(0).command;
    assert.equal(command?.command, 'agentRewind.setUpAgentCheckpoints');
    assert.deepEqual(command?.arguments, [{ agent: 'toy' }]);
  });
});

describe('the launcher hands the loaded agent modules to the CLI it starts', { skip: process.platform === 'win32' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'arw-launcher-modules-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const cli = join(dir, 'cli.js');
  writeFileSync(cli, `process.stdout.write(JSON.stringify({ args: process.argv.slice(2), modules: process.env.AGENT_REWIND_AGENT_MODULES ?? null }));\n`);
  const launcher = (agentModules?: string[]) => {
    const file = join(dir, `launcher-${agentModules?.length ?? 0}`);
    const script = launcherScript({ cliJs: cli, runtime: process.execPath, runtimeKind: 'node', home: join(dir, 'home'), writtenBy: 'test', agentModules });
    writeFileSync(file, script, { mode: 0o755 });
    return file;
  };
  const run = (file: string, args: string[], env: Record<string, string> = {}) => {
    const clean = { ...process.env };
    delete clean.AGENT_REWIND_AGENT_MODULES;
    const r = spawnSync('sh', [file, ...args], { encoding: 'utf8', env: { ...clean, AGENT_REWIND_SERVICE: 'off', ...env }, input: '{}' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { args: string[]; modules: string | null };
  };

  it("sets $AGENT_REWIND_AGENT_MODULES for any command and for an agent's hook, unless the caller set it", () => {
    const modules = [join(dir, "toy agent's", 'agent.js'), '/opt/other/agent.js'];
    const file = launcher(modules);
    assert.deepEqual(run(file, ['hooks', 'install', 'toy']), { args: ['hooks', 'install', 'toy'], modules: modules.join(':') });
    assert.deepEqual(run(file, ['hook', 'toy']).modules, modules.join(':'));
    assert.equal(run(file, ['sessions'], { AGENT_REWIND_AGENT_MODULES: '/mine.js' }).modules, '/mine.js');
    assert.equal(run(launcher(), ['sessions']).modules, null, 'no module loaded: the variable is left alone');
  });
});
