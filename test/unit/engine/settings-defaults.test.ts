// One set of file-checkpoint settings for the extension and the CLI: the defaults are defined once (and package.json
// declares the same), the CLI reads the user's VS Code settings.json (JSONC) or <home>/config.json, and both compose
// the same FileCheckpointer options, so switching between them neither invalidates the stat index nor snapshots
// something else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FILE_CHECKPOINT_DEFAULTS, fileCheckpointerOptions, parseSettings, scanTuningFrom, SERVICE_DEFAULTS } from '../../../src/core/settings/settings';
import { loadCliSettings, parseJsonc } from '../../../src/cli/cli-settings';
import { cliHarness } from '../qa/cli-harness';

const ROOT = resolve(__dirname, '../../..');

test("package.json's contributes.configuration defaults are the defaults the code uses", () => {
  const props = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).contributes.configuration.properties;
  for (const [key, value] of Object.entries(FILE_CHECKPOINT_DEFAULTS)) assert.deepEqual(props[`agentRewind.fileCheckpointing.${key}`]?.default, value, key);
  const declared = Object.keys(props)
    .filter((k) => k.startsWith('agentRewind.fileCheckpointing.'))
    .map((k) => k.slice('agentRewind.fileCheckpointing.'.length));
  assert.deepEqual(declared.sort(), Object.keys(FILE_CHECKPOINT_DEFAULTS).sort(), 'every declared setting has a default in code');
});

test("the checkpoint service's auto-start settings: package.json's defaults are the code's; either environment variable turns it off", () => {
  const props = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).contributes.configuration.properties;
  for (const [key, value] of Object.entries(SERVICE_DEFAULTS)) assert.deepEqual(props[`agentRewind.checkpointService.${key}`]?.default, value, key);
  assert.deepEqual(parseSettings(() => undefined, {}).checkpointService, { autoStart: true, idleMinutes: 30 });
  const set = (values: Record<string, unknown>) => (k: string) => values[k];
  assert.deepEqual(parseSettings(set({ 'checkpointService.autoStart': false, 'checkpointService.idleMinutes': 2 }), {}).checkpointService, {
    autoStart: false,
    idleMinutes: 2,
  });
  for (const env of [{ AGENT_REWIND_SERVICE_AUTOSTART: 'off' }, { AGENT_REWIND_SERVICE_AUTOSTART: '0' }, { AGENT_REWIND_SERVICE: 'off' }])
    assert.equal(parseSettings(() => undefined, env).checkpointService.autoStart, false, JSON.stringify(env));
  assert.equal(parseSettings(() => undefined, { AGENT_REWIND_SERVICE_AUTOSTART: 'on' }).checkpointService.autoStart, true);
});

test('settings.json is read as JSONC: comments, trailing commas, and slashes inside strings', () => {
  const text = `{
    // a comment
    "agentRewind.fileCheckpointing.exclude": ["**/dist/**", "http://x/*", ], /* block */
    "editor.fontSize": 12,
  }`;
  assert.deepEqual(parseJsonc(text), { 'agentRewind.fileCheckpointing.exclude': ['**/dist/**', 'http://x/*'], 'editor.fontSize': 12 });
});

test('the CLI composes the same options as the extension from the same keys; <home>/config.json comes first; defaults otherwise', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-settings-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, 'home');
  const userHome = join(dir, 'user');
  const ws = join(dir, 'ws');
  const env = {};
  // nothing anywhere: the extension's defaults
  const none = loadCliSettings(home, env, userHome);
  assert.equal(none.source, undefined);
  assert.deepEqual(
    fileCheckpointerOptions(none.settings, ws),
    fileCheckpointerOptions(
      parseSettings(() => undefined, { AGENT_REWIND_HOME: home }),
      ws,
    ),
  );
  assert.equal(fileCheckpointerOptions(none.settings, ws).maxFileSize, 10 * 1024 * 1024);
  assert.deepEqual(fileCheckpointerOptions(none.settings, ws).exclude, ['**/.git/**', '**/node_modules/**']);
  // VS Code's user settings
  const vscode = join(userHome, '.config', 'Code', 'User');
  mkdirSync(vscode, { recursive: true });
  const values: Record<string, unknown> = {
    'agentRewind.fileCheckpointing.maxFileSizeMB': 3,
    'agentRewind.fileCheckpointing.exclude': ['**/build/**'],
    'agentRewind.fileCheckpointing.storeSizeCapMB': 0,
  };
  writeFileSync(join(vscode, 'settings.json'), '// mine\n' + JSON.stringify(values, null, 2).replace(/\n}$/, ',\n}'));
  const fromCode = loadCliSettings(home, env, userHome);
  assert.equal(fromCode.source, join(vscode, 'settings.json'));
  const extension = parseSettings((k) => (k === 'home' ? home : values[`agentRewind.${k}`]), {});
  assert.deepEqual(fileCheckpointerOptions(fromCode.settings, ws), fileCheckpointerOptions(extension, ws));
  assert.equal(fileCheckpointerOptions(fromCode.settings, ws).maxFileSize, 3 * 1024 * 1024);
  // a shared <home>/config.json wins
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.json'), JSON.stringify({ fileCheckpointing: { maxFileSizeMB: 7 } }));
  const shared = loadCliSettings(home, env, userHome);
  assert.equal(shared.source, join(home, 'config.json'));
  assert.equal(fileCheckpointerOptions(shared.settings, ws).maxFileSize, 7 * 1024 * 1024);
});

test('the scan switches come from the environment in one place and are passed in as options', () => {
  assert.deepEqual(scanTuningFrom({}), { hashThreadAfter: 2000 });
  assert.deepEqual(scanTuningFrom({ AGENT_REWIND_HASH_THREAD: '0' }), { hashThreadAfter: Infinity });
  assert.deepEqual(scanTuningFrom({ AGENT_REWIND_HASH_THREAD_AFTER: '5' }), { hashThreadAfter: 5 });
  const s = parseSettings(() => undefined, { AGENT_REWIND_HASH_THREAD: '0' });
  assert.equal(fileCheckpointerOptions(s, '/w').tuning?.hashThreadAfter, Infinity);
  // nothing under src/core/files reads the environment: every switch arrives as an option
  const dir = join(ROOT, 'src/core/files');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) assert.doesNotMatch(readFileSync(join(dir, f), 'utf8'), /process\.env/, f);
});

test('the CLI snapshots what the extension would: node_modules is excluded by default, settings.json limits apply, --help names the source', (t) => {
  const cli = cliHarness();
  t.after(() => cli.dispose());
  const ws = join(cli.dir, 'ws');
  mkdirSync(join(ws, 'node_modules', 'pkg'), { recursive: true });
  writeFileSync(join(ws, 'node_modules', 'pkg', 'index.js'), 'module.exports = 1;\n');
  writeFileSync(join(ws, 'app.ts'), 'x\n');
  writeFileSync(join(ws, 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 1));
  const { id } = cli.run(['new', '--cwd', ws, '--json']).json;
  assert.equal(cli.run(['append', id, '--role', 'user', '--text', 'hi', '--id', 'u1', '--no-snapshot']).code, 0);
  const first = cli.run(['snapshot', id, '--anchor', 'u1', '--json']);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.json.files, 2, 'node_modules is left out, as in the extension');
  // the user's VS Code settings (HOME is cli.dir) lower the size limit: big.bin is skipped
  const vscode = join(cli.dir, '.config', 'Code', 'User');
  mkdirSync(vscode, { recursive: true });
  writeFileSync(join(vscode, 'settings.json'), '{\n  // limits\n  "agentRewind.fileCheckpointing.maxFileSizeMB": 1,\n}\n');
  assert.equal(cli.run(['append', id, '--role', 'user', '--text', 'again', '--id', 'u2', '--no-snapshot']).code, 0);
  const second = cli.run(['snapshot', id, '--anchor', 'u2', '--json']);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(
    second.json.skipped.map((s: { path: string }) => s.path),
    ['big.bin'],
  );
  const help = cli.run(['--help'], { home: null });
  assert.match(help.stdout, /Settings used now: .*\.config\/Code\/User\/settings\.json/);
});
