// Codex hooks: the settings merge (hooks.json + the feature switch in config.toml) and the handler's snapshots.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileCheckpointer } from '../../../../src/core/files';
import { runCodexHook, handleCodexHook } from '../../../../src/core/sources/codex/hook-handler';
import { freshProcessSnapshot } from '../../../../src/core/service/fresh-hook-snapshot';
import {
  codexHooksInstalled,
  codexHooksTrustRecorded,
  installCodexHooks,
  isOurCodexHandler,
  uninstallCodexHooks,
  withFeature,
  withoutFeature,
} from '../../../../src/core/sources/codex/hooks-settings';
import { settingsWriteProbe } from '../../../../src/core/sources/settings-file';

describe('Codex hooks settings', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-codex-hooks-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('installs into the user scope, merged with what is there, idempotent; uninstall removes only ours', async () => {
    const home = join(dir, 'user');
    await mkdir(home, { recursive: true });
    const other = { type: 'command', command: 'echo other' };
    await writeFile(
      join(home, 'hooks.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [other] }], PreToolUse: [{ matcher: 'Bash', hooks: [other] }] }, extra: 1 }),
    );
    await writeFile(join(home, 'config.toml'), 'model = "gpt-5.5" # mine\n\n[features]\nweb_search = true\n\n[model_providers.x]\nname = "x"\n');
    const first = installCodexHooks({ scope: 'user', codexHome: home }, ['/usr/bin/node', '/opt/agent rewind/cli.js']);
    assert.deepEqual(first.added, ['UserPromptSubmit', 'Stop']);
    assert.equal(first.featureChanged, true);
    const hooks = JSON.parse(await readFile(join(home, 'hooks.json'), 'utf8'));
    assert.equal(hooks.extra, 1);
    assert.deepEqual(hooks.hooks.PreToolUse, [{ matcher: 'Bash', hooks: [other] }]);
    assert.equal(hooks.hooks.Stop.length, 2);
    assert.equal(hooks.hooks.UserPromptSubmit[0].hooks[0].command, "/usr/bin/node '/opt/agent rewind/cli.js' hook codex");
    const toml = await readFile(join(home, 'config.toml'), 'utf8');
    assert.match(toml, /\[features\]\nhooks = true # added by agent-rewind\nweb_search = true\n/);
    assert.match(toml, /^model = "gpt-5.5" # mine\n/);
    assert.deepEqual(codexHooksInstalled({ scope: 'user', codexHome: home }), ['UserPromptSubmit', 'Stop']);

    const again = installCodexHooks({ scope: 'user', codexHome: home }, ['/usr/bin/node', '/opt/agent rewind/cli.js']);
    assert.deepEqual(again.added, []);
    assert.equal(again.featureChanged, false);
    assert.equal(await readFile(join(home, 'config.toml'), 'utf8'), toml);

    const gone = uninstallCodexHooks({ scope: 'user', codexHome: home });
    assert.deepEqual(gone.removed.sort(), ['Stop', 'UserPromptSubmit']);
    const left = JSON.parse(await readFile(join(home, 'hooks.json'), 'utf8'));
    assert.deepEqual(left, { hooks: { Stop: [{ hooks: [other] }], PreToolUse: [{ matcher: 'Bash', hooks: [other] }] }, extra: 1 });
    // other hooks remain, so the feature switch stays on
    assert.equal(await readFile(join(home, 'config.toml'), 'utf8'), toml);
  });

  it('project scope: creates .codex/hooks.json and config.toml; uninstall takes our feature line back', async () => {
    const proj = join(dir, 'proj');
    await mkdir(proj);
    installCodexHooks({ scope: 'project', projectDir: proj }, ['node', 'cli.js']);
    assert.equal(await readFile(join(proj, '.codex', 'config.toml'), 'utf8'), '[features] # added by agent-rewind\nhooks = true # added by agent-rewind\n');
    uninstallCodexHooks({ scope: 'project', projectDir: proj });
    assert.equal(await readFile(join(proj, '.codex', 'hooks.json'), 'utf8'), '{}\n');
    assert.equal(await readFile(join(proj, '.codex', 'config.toml'), 'utf8'), '');
    assert.throws(() => installCodexHooks({ scope: 'project', projectDir: join(dir, 'nope') }, ['node']), /does not exist/);
  });

  it('refuses invalid files and leaves them untouched', async () => {
    const home = join(dir, 'bad');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, 'hooks.json'), '{ not json');
    assert.throws(() => installCodexHooks({ scope: 'user', codexHome: home }, ['node']), /not valid JSON/);
    assert.equal(await readFile(join(home, 'hooks.json'), 'utf8'), '{ not json');
    await writeFile(join(home, 'hooks.json'), '{"hooks": []}');
    assert.throws(() => installCodexHooks({ scope: 'user', codexHome: home }, ['node']), /"hooks" is not an object/);
    await writeFile(join(home, 'hooks.json'), '{}');
    await writeFile(join(home, 'config.toml'), 'features = { hooks = false }\n');
    assert.throws(() => installCodexHooks({ scope: 'user', codexHome: home }, ['node']), /inline/);
    assert.equal(await readFile(join(home, 'hooks.json'), 'utf8'), '{}');
    assert.deepEqual((await readdir(home)).sort(), ['config.toml', 'hooks.json']);
  });

  it('tells which of our events Codex recorded trust for (as the 0.169 TUI writes it)', async () => {
    const home = join(dir, 'trust');
    const proj = join(dir, 'trusted-proj');
    await mkdir(proj);
    installCodexHooks({ scope: 'project', projectDir: proj }, ['node']);
    assert.deepEqual(codexHooksTrustRecorded({ scope: 'project', projectDir: proj, codexHome: home }), []);
    await mkdir(home, { recursive: true });
    const hooksFile = join(proj, '.codex', 'hooks.json');
    await writeFile(join(home, 'config.toml'), `[hooks.state]\n\n[hooks.state."${hooksFile}:user_prompt_submit:0:0"]\ntrusted_hash = "sha256:00"\n`);
    assert.deepEqual(codexHooksTrustRecorded({ scope: 'project', projectDir: proj, codexHome: home }), ['UserPromptSubmit']);
  });

  it('writes through a symlinked hooks.json, keeping the link', async () => {
    const home = join(dir, 'linked');
    await mkdir(join(home, 'real'), { recursive: true });
    await writeFile(join(home, 'real', 'hooks.json'), '{}');
    await symlink(join(home, 'real', 'hooks.json'), join(home, 'hooks.json'));
    installCodexHooks({ scope: 'user', codexHome: home }, ['node']);
    assert.ok((await lstat(join(home, 'hooks.json'))).isSymbolicLink());
    assert.ok(JSON.parse(await readFile(join(home, 'real', 'hooks.json'), 'utf8')).hooks.Stop);
  });

  it("keeps another program's `hook codex` handler and every byte of the rest (issue 22, item 8)", async () => {
    const home = join(dir, 'foreign');
    await mkdir(home, { recursive: true });
    const theirs = [
      { type: 'command', command: 'other-tool hook codex' },
      { type: 'command', command: "/usr/bin/other 'hook' codex" },
      { type: 'command', command: '/usr/bin/agent-rewind hook codex', timeout: 10 },
    ];
    const text = `{\n    "seed": 12345678901234567890,\n    "hooks": {\n        "Stop": [\n            { "hooks": ${JSON.stringify(theirs)} }\n        ]\n    }\n}\n`;
    const config = 'model = "x" # mine\n[features]\nhooks = false # off for now\n';
    await writeFile(join(home, 'hooks.json'), text);
    await writeFile(join(home, 'config.toml'), config);
    assert.deepEqual(uninstallCodexHooks({ scope: 'user', codexHome: home }).removed, []);
    assert.equal(await readFile(join(home, 'hooks.json'), 'utf8'), text);
    const c = installCodexHooks({ scope: 'user', codexHome: home }, ['/opt/bin/agent-rewind']);
    assert.deepEqual([c.added, c.updated], [['UserPromptSubmit', 'Stop'], []]);
    const after = await readFile(join(home, 'hooks.json'), 'utf8');
    assert.ok(
      after.startsWith(`{\n    "seed": 12345678901234567890,\n    "hooks": {\n        "Stop": [\n            { "hooks": ${JSON.stringify(theirs)} },\n`),
      after,
    );
    assert.match(await readFile(join(home, 'config.toml'), 'utf8'), /^hooks = true # added by agent-rewind \(was: hooks = false # off for now\)$/m);
    const featured = await readFile(join(home, 'config.toml'), 'utf8');
    // what a version before the mark wrote is recognised by its exact command line
    assert.equal(isOurCodexHandler({ type: 'command', command: '/opt/bin/agent-rewind hook codex' }), true);
    assert.equal(isOurCodexHandler({ type: 'command', command: '/opt/bin/agent-rewind hook codex; rm -rf x' }), false);
    assert.equal(isOurCodexHandler({ type: 'command', command: "/usr/bin/node '/opt/a b/dist/cli.js' hook codex" }), true);
    uninstallCodexHooks({ scope: 'user', codexHome: home });
    assert.equal(await readFile(join(home, 'hooks.json'), 'utf8'), text);
    // their hooks are still there, so the switch stays on
    assert.equal(await readFile(join(home, 'config.toml'), 'utf8'), featured);
    await writeFile(join(home, 'hooks.json'), '{}');
    uninstallCodexHooks({ scope: 'user', codexHome: home });
    assert.equal(await readFile(join(home, 'config.toml'), 'utf8'), config);
  });

  it('refuses a FIFO or a symlink in a project at once, and keeps the owner of a rewritten file (issue 22, items 7 and 11)', async () => {
    const proj = join(dir, 'odd-proj');
    await mkdir(join(proj, '.codex'), { recursive: true });
    execFileSync('mkfifo', [join(proj, '.codex', 'config.toml')]);
    assert.throws(() => installCodexHooks({ scope: 'project', projectDir: proj }, ['node']), /config\.toml is not a regular file/);
    assert.deepEqual(await readdir(join(proj, '.codex')), ['config.toml']);
    await rm(join(proj, '.codex', 'config.toml'));
    // the trust hint read after installing does not wait on a FIFO either
    const fifoHome = join(dir, 'fifo-home');
    await mkdir(fifoHome);
    execFileSync('mkfifo', [join(fifoHome, 'config.toml')]);
    assert.deepEqual(codexHooksTrustRecorded({ scope: 'project', projectDir: proj, codexHome: fifoHome }), []);
    const outside = join(dir, 'outside-hooks.json');
    await writeFile(outside, '{}');
    await symlink(outside, join(proj, '.codex', 'hooks.json'));
    assert.throws(() => installCodexHooks({ scope: 'project', projectDir: proj }, ['node']), /hooks\.json is a symbolic link/);
    assert.equal(await readFile(outside, 'utf8'), '{}');
    await rm(join(proj, '.codex', 'hooks.json'));
    if (process.getuid?.() === 0) {
      await writeFile(join(proj, '.codex', 'hooks.json'), '{}');
      chownSync(join(proj, '.codex', 'hooks.json'), 4242, 4343);
      installCodexHooks({ scope: 'project', projectDir: proj }, ['node']);
      const st = statSync(join(proj, '.codex', 'hooks.json'));
      assert.deepEqual([st.uid, st.gid], [4242, 4343]);
    }
  });

  it('a change another program makes to hooks.json while we install is kept (issue 22, item 9)', async () => {
    const home = join(dir, 'racing');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, 'hooks.json'), '{"hooks": {}}');
    let n = 0;
    settingsWriteProbe.beforeCommit = () => {
      if (n++ === 0) writeFileSync(join(home, 'hooks.json'), '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "theirs"}]}]}}');
    };
    try {
      installCodexHooks({ scope: 'user', codexHome: home }, ['/opt/bin/agent-rewind']);
    } finally {
      settingsWriteProbe.beforeCommit = undefined;
    }
    const hooks = JSON.parse(await readFile(join(home, 'hooks.json'), 'utf8'));
    assert.deepEqual(hooks.hooks.PreToolUse, [{ hooks: [{ type: 'command', command: 'theirs' }] }]);
    assert.deepEqual(Object.keys(hooks.hooks), ['PreToolUse', 'UserPromptSubmit', 'Stop']);
  });

  it('all or nothing: when config.toml cannot be replaced, hooks.json is put back as it was (issue 22, item 10)', async () => {
    const home = join(dir, 'half');
    await mkdir(home, { recursive: true });
    const text = '{\n  "hooks": {\n    "Stop": []\n  }\n}\n';
    await writeFile(join(home, 'hooks.json'), text);
    await writeFile(join(home, 'config.toml'), 'model = "x"\n');
    settingsWriteProbe.beforeCommit = (staged) => {
      // the config.toml rename fails after the hooks.json one succeeded (as a read-only or immutable file does)
      const config = staged.find((s) => s.target.endsWith('config.toml'))!;
      unlinkSync(config.tmp);
      mkdirSync(config.tmp);
      writeFileSync(join(config.tmp, 'x'), '');
    };
    try {
      assert.throws(() => installCodexHooks({ scope: 'user', codexHome: home }, ['/opt/bin/agent-rewind']));
    } finally {
      settingsWriteProbe.beforeCommit = undefined;
    }
    assert.equal(await readFile(join(home, 'hooks.json'), 'utf8'), text);
    assert.equal(await readFile(join(home, 'config.toml'), 'utf8'), 'model = "x"\n');
    // a missing hooks.json that the install would have created is removed again
    await rm(join(home, 'hooks.json'));
    settingsWriteProbe.beforeCommit = (staged) => {
      const config = staged.find((s) => s.target.endsWith('config.toml'))!;
      unlinkSync(config.tmp);
    };
    try {
      assert.throws(() => installCodexHooks({ scope: 'user', codexHome: home }, ['/opt/bin/agent-rewind']), /ENOENT/);
    } finally {
      settingsWriteProbe.beforeCommit = undefined;
    }
    assert.equal(existsSync(join(home, 'hooks.json')), false);
    assert.equal(await readFile(join(home, 'config.toml'), 'utf8'), 'model = "x"\n');
  });

  it('edits the feature table line by line', () => {
    assert.equal(withFeature(''), '[features] # added by agent-rewind\nhooks = true # added by agent-rewind\n');
    assert.equal(withFeature('[features]\nhooks = true\n'), '[features]\nhooks = true\n');
    assert.equal(withFeature('[features]\nhooks = false\n'), '[features]\nhooks = true # added by agent-rewind (was: hooks = false)\n');
    // what withFeature wrote, withoutFeature takes back exactly
    for (const text of ['', 'a = 1\n', 'a = 1', '[features]\nhooks = false # mine\nx = 2\n', '[features]\r\nweb = true\r\n', 'a = 1\r\n', '\n'])
      assert.equal(withoutFeature(withFeature(text)), text === 'a = 1' ? 'a = 1\n' : text, JSON.stringify(text));
    assert.equal(withFeature('features.hooks = true\n'), 'features.hooks = true\n');
    assert.throws(() => withFeature('[features]\n[features]\n'), /twice/);
    assert.throws(() => withFeature('x = """\nopen'), /multi-line/);
  });
});

describe('Codex hook handler', () => {
  let dir: string;
  let home: string;
  let ws: string;
  let codexHome: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-codex-hh-'));
    home = join(dir, 'home');
    ws = join(dir, 'ws');
    codexHome = join(dir, 'codexhome');
    await mkdir(ws, { recursive: true });
    await mkdir(codexHome, { recursive: true });
    await writeFile(join(ws, 'a.txt'), 'a\n');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const base = () => ({
    session_id: 'sess-1',
    turn_id: 'turn-1',
    cwd: ws,
    transcript_path: join(codexHome, 'x.jsonl'),
    model: 'gpt-5.5',
    permission_mode: 'bypassPermissions',
  });

  it('UserPromptSubmit snapshots under the turn id, Stop under <turn id>:turn-end', async () => {
    assert.deepEqual(
      await runCodexHook({ ...base(), hook_event_name: 'UserPromptSubmit', prompt: 'hi' }, { home, snapshot: freshProcessSnapshot(home, () => {}) }),
      {
        action: 'snapshot',
        anchorId: 'turn-1',
      },
    );
    await writeFile(join(ws, 'b.txt'), 'b\n');
    await handleCodexHook(JSON.stringify({ ...base(), hook_event_name: 'Stop', stop_hook_active: false }), {
      home,
      snapshot: freshProcessSnapshot(home, () => {}),
    });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    try {
      const records = await fc.listSnapshots('sess-1');
      assert.deepEqual(records.map((r) => [r.anchorId, r.kind]).sort(), [
        ['turn-1', 'user-message'],
        ['turn-1:turn-end', 'turn-end'],
      ]);
    } finally {
      await fc.dispose();
    }
    assert.deepEqual(await readdir(codexHome), []);
  });

  it('garbage, missing turn_id, a missing folder, other events: no throw, nothing printed, logged, nothing in CODEX_HOME', async () => {
    const writes: string[] = [];
    const orig = process.stdout.write.bind(process.stdout);
    (process.stdout as { write: unknown }).write = (c: string) => (writes.push(String(c)), true);
    try {
      for (const input of [
        undefined,
        null,
        42,
        'not json',
        '{"a":1}',
        { ...base(), turn_id: undefined, hook_event_name: 'UserPromptSubmit' },
        { ...base(), session_id: '../../etc', hook_event_name: 'UserPromptSubmit' },
        { ...base(), cwd: join(dir, 'nope'), hook_event_name: 'Stop' },
      ]) {
        await handleCodexHook(input, { home, snapshot: freshProcessSnapshot(home, () => {}) });
      }
      assert.equal(
        (await runCodexHook({ ...base(), hook_event_name: 'PreToolUse' }, { home, snapshot: freshProcessSnapshot(home, () => {}) })).action,
        'ignored',
      );
    } finally {
      (process.stdout as { write: unknown }).write = orig;
    }
    assert.deepEqual(writes, []);
    const log = await readFile(join(home, 'logs', 'codex-hooks.log'), 'utf8');
    assert.equal(log.trimEnd().split('\n').length, 8);
    assert.match(log, /no turn_id/);
    assert.deepEqual(await readdir(codexHome), []);
  });
});
