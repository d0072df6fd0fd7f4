// Codex hooks: the settings merge (hooks.json + the feature switch in config.toml) and the handler's snapshots.
import assert from 'node:assert/strict';
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
  uninstallCodexHooks,
  withFeature,
} from '../../../../src/core/sources/codex/hooks-settings';

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
    assert.deepEqual(gone.removed, ['UserPromptSubmit', 'Stop']);
    const left = JSON.parse(await readFile(join(home, 'hooks.json'), 'utf8'));
    assert.deepEqual(left, { hooks: { Stop: [{ hooks: [other] }], PreToolUse: [{ matcher: 'Bash', hooks: [other] }] }, extra: 1 });
    // other hooks remain, so the feature switch stays on
    assert.equal(await readFile(join(home, 'config.toml'), 'utf8'), toml);
  });

  it('project scope: creates .codex/hooks.json and config.toml; uninstall takes our feature line back', async () => {
    const proj = join(dir, 'proj');
    installCodexHooks({ scope: 'project', projectDir: proj }, ['node', 'cli.js']);
    assert.equal(await readFile(join(proj, '.codex', 'config.toml'), 'utf8'), '[features]\nhooks = true # added by agent-rewind\n');
    uninstallCodexHooks({ scope: 'project', projectDir: proj });
    assert.deepEqual(JSON.parse(await readFile(join(proj, '.codex', 'hooks.json'), 'utf8')), {});
    assert.equal((await readFile(join(proj, '.codex', 'config.toml'), 'utf8')).includes('hooks = true'), false);
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

  it('edits the feature table line by line', () => {
    assert.equal(withFeature(''), '[features]\nhooks = true # added by agent-rewind\n');
    assert.equal(withFeature('[features]\nhooks = true\n'), '[features]\nhooks = true\n');
    assert.equal(withFeature('[features]\nhooks = false\n'), '[features]\nhooks = true # added by agent-rewind\n');
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
