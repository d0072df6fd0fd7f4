import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, beforeEach, afterEach } from 'node:test';
import {
  claudeHooksStatus,
  claudeSettingsFile,
  ClaudeSettingsError,
  installClaudeHooks,
  isOurHandler,
  uninstallClaudeHooks,
} from '../../../../src/core/sources/claude/hooks-settings';

const launcher = { command: '/opt/node/bin/node', args: ['/opt/agent-rewind/dist/cli.js'] };
let dir: string;
let ws: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-cc-hooks-'));
  ws = join(dir, 'ws');
  mkdirSync(ws);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = () => join(ws, '.claude', 'settings.local.json');
const read = () => JSON.parse(readFileSync(file(), 'utf8'));
const loc = () => ({ scope: 'workspace' as const, workspace: ws });

test('install creates the workspace settings file with exec-form handlers for UserPromptSubmit and Stop', () => {
  const c = installClaudeHooks(loc(), launcher);
  assert.deepEqual([c.written, c.created, c.added, c.alreadyPresent, c.removed], [true, true, ['UserPromptSubmit', 'Stop'], [], []]);
  assert.equal(c.file, file());
  const handler = { type: 'command', command: '/opt/node/bin/node', args: ['/opt/agent-rewind/dist/cli.js', 'hook', 'claude'], timeout: 30 };
  assert.deepEqual(read(), { hooks: { UserPromptSubmit: [{ hooks: [handler] }], Stop: [{ hooks: [handler] }] } });
  assert.deepEqual(claudeHooksStatus(loc()).events, ['UserPromptSubmit', 'Stop']);
});

test('install keeps other settings and hooks, twice changes nothing, uninstall removes only ours', () => {
  const theirs = {
    permissions: { allow: ['Bash(ls:*)'] },
    model: 'x',
    hooks: {
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo', args: ['hi'] }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh' }] }],
    },
    '10': 'integer-like key',
  };
  mkdirSync(join(ws, '.claude'));
  writeFileSync(file(), JSON.stringify(theirs, null, 4) + '\n');
  installClaudeHooks(loc(), launcher);
  const after = readFileSync(file(), 'utf8');
  assert.match(after, /^\{\n {4}"/, 'indentation kept');
  const s = JSON.parse(after);
  assert.deepEqual(s.permissions, theirs.permissions);
  assert.deepEqual(s.hooks.PreToolUse, theirs.hooks.PreToolUse);
  assert.equal(s.hooks.UserPromptSubmit.length, 2);
  assert.deepEqual(s.hooks.UserPromptSubmit[0], theirs.hooks.UserPromptSubmit[0]);
  const mtime = statSync(file()).mtimeMs;
  const again = installClaudeHooks(loc(), launcher);
  assert.deepEqual([again.written, again.added, again.alreadyPresent], [false, [], ['UserPromptSubmit', 'Stop']]);
  assert.equal(readFileSync(file(), 'utf8'), after);
  assert.equal(statSync(file()).mtimeMs, mtime);
  const un = uninstallClaudeHooks(loc());
  assert.deepEqual(un.removed, ['UserPromptSubmit', 'Stop']);
  assert.deepEqual(JSON.parse(readFileSync(file(), 'utf8')), theirs);
  const un2 = uninstallClaudeHooks(loc());
  assert.deepEqual([un2.written, un2.removed], [false, []]);
  // no temp file left behind
  assert.deepEqual(readdirSync(join(ws, '.claude')), ['settings.local.json']);
});

test('a handler of ours with another launcher is updated in place, duplicates dropped; shell-form ones are recognised', () => {
  mkdirSync(join(ws, '.claude'));
  const old = { type: 'command', command: '/old/node', args: ['/old/cli.js', 'hook', 'claude'], timeout: 30 };
  writeFileSync(
    file(),
    JSON.stringify({
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: 'other' }, old] }, { hooks: [old] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: 'agent-rewind hook claude' }] }],
      },
    }),
  );
  const c = installClaudeHooks(loc(), launcher);
  assert.deepEqual([c.added, c.updated], [['UserPromptSubmit'], ['Stop']]);
  const s = read();
  assert.equal(s.hooks.Stop.length, 1);
  assert.deepEqual(
    s.hooks.Stop[0].hooks.map((h: { command: string }) => h.command),
    ['other', '/opt/node/bin/node'],
  );
  assert.ok(isOurHandler(s.hooks.SessionEnd[0].hooks[0]));
  const un = uninstallClaudeHooks(loc());
  assert.deepEqual(un.removed.sort(), ['SessionEnd', 'Stop', 'UserPromptSubmit']);
  assert.deepEqual(read(), { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'other' }] }] } });
  assert.equal(isOurHandler({ type: 'command', command: 'node', args: ['x', 'hook', 'codex'] }), false);
});

test('a settings file that is not valid JSON, or of an unknown shape, is refused and left untouched', () => {
  mkdirSync(join(ws, '.claude'));
  for (const bad of ['{ "hooks": ', '[1,2]', '{"hooks": []}', '{"hooks": {"Stop": {}}}', '// comment\n{}']) {
    writeFileSync(file(), bad);
    assert.throws(() => installClaudeHooks(loc(), launcher), ClaudeSettingsError, bad);
    // uninstall refuses too, except for a shape that holds nothing of ours (an event that is not a list): no write
    if (bad === '{"hooks": {"Stop": {}}}') assert.equal(uninstallClaudeHooks(loc()).written, false);
    else assert.throws(() => uninstallClaudeHooks(loc()), ClaudeSettingsError, bad);
    assert.equal(readFileSync(file(), 'utf8'), bad);
  }
  assert.throws(() => installClaudeHooks({ scope: 'workspace', workspace: join(dir, 'missing') }, launcher), /does not exist/);
  assert.equal(existsSync(join(dir, 'missing')), false);
});

test('mode kept, symlinked settings written through the link', () => {
  const real = join(dir, 'dotfiles', 'settings.local.json');
  mkdirSync(join(dir, 'dotfiles'));
  writeFileSync(real, '{"a":1}');
  chmodSync(real, 0o600);
  mkdirSync(join(ws, '.claude'));
  symlinkSync(real, file());
  installClaudeHooks(loc(), launcher);
  assert.ok(lstatSync(file()).isSymbolicLink());
  assert.equal(statSync(real).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(real, 'utf8')).a, 1);
  assert.ok(JSON.parse(readFileSync(real, 'utf8')).hooks.Stop);
});

test('user scope: $CLAUDE_CONFIG_DIR (first of a list), else ~/.claude', () => {
  assert.equal(claudeSettingsFile({ scope: 'user', env: { CLAUDE_CONFIG_DIR: '/a/cfg,/b/cfg' } }), '/a/cfg/settings.json');
  assert.equal(claudeSettingsFile({ scope: 'user', env: {}, homeDir: '/home/u' }), '/home/u/.claude/settings.json');
  const cfg = join(dir, 'cfg');
  const c = installClaudeHooks({ scope: 'user', env: { CLAUDE_CONFIG_DIR: cfg } }, launcher);
  assert.equal(c.file, join(cfg, 'settings.json'));
  assert.ok(JSON.parse(readFileSync(join(cfg, 'settings.json'), 'utf8')).hooks.UserPromptSubmit);
});
