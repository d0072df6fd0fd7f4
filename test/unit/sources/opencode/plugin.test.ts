// agent-rewind's OpenCode plugin: the file written, idempotent, refused over someone else's file or through a linked
// folder, removed only when ours; the plugin module itself run as OpenCode would (its chat.message hook waits for the
// launcher, which gets the prompt's ids on stdin); and the hook handler's snapshots.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { FileCheckpointer } from '../../../../src/core/files';
import { freshProcessSnapshot } from '../../../../src/core/service/fresh-hook-snapshot';
import { runOpenCodeHook } from '../../../../src/core/sources/opencode/hook-handler';
import {
  installOpenCodePlugin,
  openCodePluginInstalled,
  pluginFileOf,
  pluginSource,
  uninstallOpenCodePlugin,
} from '../../../../src/core/sources/opencode/plugin-file';

describe('OpenCode plugin file', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-opencode-plugin-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('installs into the project once, changes nothing the second time, updates for a new launcher, uninstalls only ours', () => {
    const project = join(dir, 'p1');
    mkdirSync(join(project, '.opencode', 'plugins'), { recursive: true });
    writeFileSync(join(project, '.opencode', 'plugins', 'mine.js'), 'export const Mine = async () => ({});\n');
    const loc = { scope: 'project' as const, projectDir: project };
    assert.equal(installOpenCodePlugin(loc, ['/opt/ar/bin/agent-rewind']).action, 'added');
    const file = pluginFileOf(loc);
    assert.equal(file, join(project, '.opencode', 'plugins', 'agent-rewind.js'));
    assert.equal(readFileSync(file, 'utf8'), pluginSource(['/opt/ar/bin/agent-rewind']));
    assert.match(readFileSync(file, 'utf8'), /const ARGV = \["\/opt\/ar\/bin\/agent-rewind","hook","opencode"\];/);
    assert.deepEqual(openCodePluginInstalled(loc), ['chat.message', 'session.idle']);
    assert.equal(installOpenCodePlugin(loc, ['/opt/ar/bin/agent-rewind']).action, 'unchanged');
    assert.equal(installOpenCodePlugin(loc, ['/usr/bin/node', '/opt/other/cli.js']).action, 'updated');
    assert.equal(uninstallOpenCodePlugin(loc).action, 'removed');
    assert.equal(existsSync(file), false);
    assert.equal(readFileSync(join(project, '.opencode', 'plugins', 'mine.js'), 'utf8'), 'export const Mine = async () => ({});\n');
    assert.equal(uninstallOpenCodePlugin(loc).action, 'absent');
    assert.deepEqual(openCodePluginInstalled(loc), []);
  });

  it("installs into the user's config folder ($XDG_CONFIG_HOME/opencode/plugins)", () => {
    const configDir = join(dir, 'config', 'opencode');
    const loc = { scope: 'user' as const, configDir };
    assert.equal(installOpenCodePlugin(loc, ['/l']).action, 'added');
    assert.ok(existsSync(join(configDir, 'plugins', 'agent-rewind.js')));
  });

  it('refuses to replace or remove a file of that name that is not ours, and a linked .opencode folder in a project', () => {
    const project = join(dir, 'p2');
    mkdirSync(join(project, '.opencode', 'plugins'), { recursive: true });
    const theirs = join(project, '.opencode', 'plugins', 'agent-rewind.js');
    writeFileSync(theirs, 'export const X = 1;\n');
    const loc = { scope: 'project' as const, projectDir: project };
    assert.throws(() => installOpenCodePlugin(loc, ['/l']), /not agent-rewind's plugin; it was left as it is/);
    assert.throws(() => uninstallOpenCodePlugin(loc), /not agent-rewind's plugin/);
    assert.equal(readFileSync(theirs, 'utf8'), 'export const X = 1;\n');

    const p3 = join(dir, 'p3');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(p3);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(p3, '.opencode'));
    assert.throws(() => installOpenCodePlugin({ scope: 'project', projectDir: p3 }, ['/l']), /symbolic link/);
    assert.equal(existsSync(join(elsewhere, 'plugins')), false);
  });

  it('the plugin module runs the launcher at chat.message and waits for it, then at session.idle (detached) with that prompt id', async () => {
    const record = join(dir, 'calls.jsonl');
    const launcher = join(dir, 'fake-launcher.sh');
    // sleeps first: the hook must not return before the launcher is done; one write per call, so a poll never sees
    // a call's arguments without its input
    writeFileSync(launcher, `#!/bin/sh\nsleep 0.3\ninput=$(cat)\nprintf '%s %s\\n' "$*" "$input" >> '${record}'\n`);
    chmodSync(launcher, 0o755);
    const pluginDir = join(dir, 'run-plugin');
    mkdirSync(pluginDir);
    const file = join(pluginDir, 'agent-rewind.mjs');
    writeFileSync(file, pluginSource([launcher]));
    const mod = (await import(pathToFileURL(file).href)) as {
      AgentRewind: (ctx: { directory: string }) => Promise<Record<string, (...a: unknown[]) => Promise<void>>>;
    };
    assert.deepEqual(Object.keys(mod), ['AgentRewind'], 'one export: OpenCode takes every exported function for a plugin');
    const hooks = await mod.AgentRewind({ directory: '/work/project' });
    await hooks['chat.message']!({ sessionID: 'ses_abc' }, { message: { id: 'msg_001', role: 'user', sessionID: 'ses_abc' }, parts: [] });
    const lines = () => readFileSync(record, 'utf8').trim().split('\n');
    assert.equal(lines().length, 1, 'the launcher finished before the hook returned');
    assert.deepEqual(
      lines()[0],
      `hook opencode ${JSON.stringify({ hook_event_name: 'chat.message', session_id: 'ses_abc', message_id: 'msg_001', cwd: '/work/project' })}`,
    );
    await hooks.event!({ event: { type: 'session.status', properties: { sessionID: 'ses_abc' } } });
    await hooks.event!({ event: { type: 'session.idle', properties: { sessionID: 'ses_other' } } });
    await hooks.event!({ event: { type: 'session.idle', properties: { sessionID: 'ses_abc' } } });
    assert.equal(lines().length, 1, 'the turn-end launcher is not waited for (OpenCode exits right after session.idle)');
    for (let i = 0; i < 100 && lines().length < 2; i++) await new Promise((ok) => setTimeout(ok, 50));
    assert.equal(lines().length, 2, 'only the idle of a session it saw a prompt of');
    assert.match(lines()[1]!, /"hook_event_name":"session.idle","session_id":"ses_abc","message_id":"msg_001"/);
  });

  it('a launcher that cannot start does not break the prompt', async () => {
    const pluginDir = join(dir, 'run-plugin-2');
    mkdirSync(pluginDir);
    const file = join(pluginDir, 'agent-rewind.mjs');
    writeFileSync(file, pluginSource([join(dir, 'no-such-launcher')]));
    const mod = (await import(pathToFileURL(file).href)) as {
      AgentRewind: (ctx: { directory: string }) => Promise<Record<string, (...a: unknown[]) => Promise<void>>>;
    };
    const hooks = await mod.AgentRewind({ directory: '/w' });
    await hooks['chat.message']!({ sessionID: 'ses_a' }, { message: { id: 'msg_1' } });
  });
});

describe('OpenCode hook handler', () => {
  let dir: string;
  let ws: string;
  let home: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-opencode-hook-'));
    ws = join(dir, 'ws');
    home = join(dir, 'home');
    mkdirSync(ws);
    writeFileSync(join(ws, 'a.txt'), 'a\n');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('chat.message snapshots under the message id, session.idle under <message id>:turn-end', async () => {
    const base = { session_id: 'ses_1', message_id: 'msg_1', cwd: ws };
    assert.deepEqual(
      await runOpenCodeHook(JSON.stringify({ ...base, hook_event_name: 'chat.message' }), { home, snapshot: freshProcessSnapshot(home, () => {}) }),
      {
        action: 'snapshot',
        anchorId: 'msg_1',
      },
    );
    writeFileSync(join(ws, 'b.txt'), 'b\n');
    assert.equal(
      (await runOpenCodeHook({ ...base, hook_event_name: 'session.idle' }, { home, snapshot: freshProcessSnapshot(home, () => {}) })).anchorId,
      'msg_1:turn-end',
    );
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    try {
      assert.deepEqual((await fc.listSnapshots('ses_1')).map((r) => [r.anchorId, r.kind]).sort(), [
        ['msg_1', 'user-message'],
        ['msg_1:turn-end', 'turn-end'],
      ]);
    } finally {
      await fc.dispose();
    }
  });

  it('garbage, ids of another shape, a missing folder, other events: no throw, logged, no snapshot', async () => {
    const snapshot = freshProcessSnapshot(home, () => {});
    for (const input of [
      'not json',
      '{}',
      { hook_event_name: 'chat.message', session_id: '../x', message_id: 'msg_1', cwd: ws },
      { hook_event_name: 'chat.message', session_id: 'ses_1', message_id: 'msg_1/../../x', cwd: ws },
      { hook_event_name: 'chat.message', session_id: 'ses_1', message_id: 'msg_1', cwd: join(dir, 'gone') },
      { hook_event_name: 'chat.message', session_id: 'ses_1', cwd: ws },
    ])
      assert.equal((await runOpenCodeHook(input, { home, snapshot })).action, 'failed', JSON.stringify(input));
    assert.equal(
      (await runOpenCodeHook({ hook_event_name: 'tool.execute.before', session_id: 'ses_1', message_id: 'msg_1', cwd: ws }, { home, snapshot })).action,
      'ignored',
    );
    const log = readFileSync(join(home, 'logs', 'opencode-hooks.log'), 'utf8');
    assert.equal(log.trim().split('\n').length, 6);
  });
});
