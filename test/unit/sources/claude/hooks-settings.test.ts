import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  ftruncateSync,
  openSync,
  writeSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  existsSync,
  lstatSync,
} from 'node:fs';
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
import { MAX_SETTINGS_BYTES, SETTINGS_EDIT_TRIES, settingsWriteProbe } from '../../../../src/core/sources/settings-file';

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
  const handler = {
    type: 'command',
    command: '/opt/node/bin/node',
    args: ['/opt/agent-rewind/dist/cli.js', 'hook', 'claude'],
    timeout: 30,
    installedBy: 'agent-rewind',
  };
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

test('a handler of ours with another launcher is updated in place, duplicates dropped; an older install (no mark) is recognised by its exact shape', () => {
  mkdirSync(join(ws, '.claude'));
  // what versions before the mark wrote: node + cli.js, and the launcher
  const old = { type: 'command', command: '/old/node', args: ['/old/dist/cli.js', 'hook', 'claude'], timeout: 30 };
  const oldLauncher = { type: 'command', command: '/home/u/.agent-rewind/bin/agent-rewind', args: ['hook', 'claude'], timeout: 30 };
  writeFileSync(
    file(),
    JSON.stringify({
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: 'other' }, old] }, { hooks: [old] }],
        SessionEnd: [{ hooks: [oldLauncher] }],
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

test("another program's handler whose command ends in `hook claude` is neither replaced nor removed (issue 22, item 8)", () => {
  mkdirSync(join(ws, '.claude'));
  const theirs = [
    { type: 'command', command: 'other-tool hook claude' },
    { type: 'command', command: '/usr/bin/other-tool', args: ['hook', 'claude'] },
    { type: 'command', command: '/usr/bin/other-tool', args: ['hook', 'claude'], timeout: 30 },
    { type: 'command', command: '/usr/bin/node', args: ['/opt/other/main.js', 'hook', 'claude'], timeout: 30 },
    { type: 'command', command: '/opt/agent-rewind', args: ['hook', 'claude'], timeout: 30, statusMessage: 'theirs' },
  ];
  const text = JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: theirs }], Stop: [{ hooks: theirs }] } }, null, 2) + '\n';
  writeFileSync(file(), text);
  for (const h of theirs) assert.equal(isOurHandler(h), false, JSON.stringify(h));
  assert.deepEqual(uninstallClaudeHooks(loc()).written, false);
  assert.equal(readFileSync(file(), 'utf8'), text);
  const c = installClaudeHooks(loc(), launcher);
  assert.deepEqual([c.added, c.updated], [['UserPromptSubmit', 'Stop'], []]);
  assert.deepEqual(read().hooks.Stop[0].hooks, theirs);
  assert.equal(read().hooks.Stop.length, 2);
  uninstallClaudeHooks(loc());
  assert.equal(readFileSync(file(), 'utf8'), text);
});

test('the rest of the file keeps its bytes: big numbers, key order, layout; install then uninstall gives it back exactly (issue 22, item 8)', () => {
  mkdirSync(join(ws, '.claude'));
  const texts = [
    '{\n    "seed": 12345678901234567890,\n    "ratio": 1.50,\n    "esc": "\\u00e9",\n    "hooks": {\n        "Stop": [\n            { "hooks": [ { "type": "command", "command": "x" } ] }\n        ]\n    }\n}\n',
    '{"seed":12345678901234567890,"model":"x"}',
    '{\r\n\t"seed": 12345678901234567890,\r\n\t"other": {}\r\n}',
    '\ufeff{\n  "b": 1,\n  "a": [1e400, -0]\n}\n',
    '{}',
    '',
  ];
  for (const text of texts) {
    writeFileSync(file(), text);
    installClaudeHooks(loc(), launcher);
    const after = readFileSync(file(), 'utf8');
    if (text.includes('seed')) assert.ok(after.includes('"seed": 12345678901234567890') || after.includes('"seed":12345678901234567890'), after);
    assert.equal(JSON.parse(after.replace(/^\ufeff/, '')).hooks.Stop.at(-1).hooks[0].installedBy, 'agent-rewind');
    const before = text.includes('"hooks"') ? text.split('"hooks"')[0]! : text.slice(0, text.lastIndexOf('}')).trimEnd();
    assert.equal(after.startsWith(before), true, `what comes before the hooks is untouched: ${after}`);
    uninstallClaudeHooks(loc());
    const back = readFileSync(file(), 'utf8');
    if (text === '') assert.equal(back, '{}\n');
    else assert.equal(back, text, JSON.stringify(text));
  }
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

test('a symlinked settings file or .claude folder in the workspace is refused and nothing is written through it; a dangling link stays a link (issue 22, item 11)', () => {
  const outside = join(dir, 'dotfiles');
  mkdirSync(outside);
  const real = join(outside, 'settings.local.json');
  writeFileSync(real, '{"a":1}');
  mkdirSync(join(ws, '.claude'));
  symlinkSync(real, file());
  assert.throws(() => installClaudeHooks(loc(), launcher), /is a symbolic link .*does not write through links/);
  assert.throws(() => uninstallClaudeHooks(loc()), /is a symbolic link/);
  assert.equal(readFileSync(real, 'utf8'), '{"a":1}');
  rmSync(file());
  symlinkSync(join(outside, 'missing.json'), file());
  assert.throws(() => installClaudeHooks(loc(), launcher), /is a symbolic link/);
  assert.ok(lstatSync(file()).isSymbolicLink());
  assert.equal(existsSync(join(outside, 'missing.json')), false);
  rmSync(join(ws, '.claude'), { recursive: true });
  symlinkSync(outside, join(ws, '.claude'));
  rmSync(real);
  assert.throws(() => installClaudeHooks(loc(), launcher), /\.claude is a symbolic link/);
  assert.deepEqual(readdirSync(outside), []);
});

test('user scope: a symlinked settings file (dotfiles) is written through, its real path named; mode kept', () => {
  const cfg = join(dir, 'cfg');
  const real = join(dir, 'dotfiles', 'settings.json');
  mkdirSync(join(dir, 'dotfiles'));
  mkdirSync(cfg);
  writeFileSync(real, '{"a":1}');
  chmodSync(real, 0o600);
  symlinkSync(real, join(cfg, 'settings.json'));
  const c = installClaudeHooks({ scope: 'user', env: { CLAUDE_CONFIG_DIR: cfg } }, launcher);
  assert.equal(c.target, real);
  assert.ok(lstatSync(join(cfg, 'settings.json')).isSymbolicLink());
  assert.equal(statSync(real).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(real, 'utf8')).a, 1);
  rmSync(real);
  assert.throws(() => installClaudeHooks({ scope: 'user', env: { CLAUDE_CONFIG_DIR: cfg } }, launcher), /does not exist; fix or remove the link/);
  assert.ok(lstatSync(join(cfg, 'settings.json')).isSymbolicLink());
  assert.equal(existsSync(real), false);
});

test("owner and mode of a rewritten file are kept (a root install does not make it root's) (issue 22, item 11)", { skip: process.getuid?.() !== 0 }, () => {
  mkdirSync(join(ws, '.claude'));
  writeFileSync(file(), '{"a":1}');
  chmodSync(file(), 0o640);
  chownSync(file(), 12345, 23456);
  installClaudeHooks(loc(), launcher);
  const st = statSync(file());
  assert.deepEqual([st.uid, st.gid, st.mode & 0o7777], [12345, 23456, 0o640]);
  assert.ok(read().hooks.Stop);
});

test(
  'a FIFO, a device or an oversized file is refused at once with a clear error, never read (issue 22, item 7)',
  { skip: process.platform === 'win32' },
  () => {
    mkdirSync(join(ws, '.claude'));
    execFileSync('mkfifo', [file()]);
    for (const run of [() => installClaudeHooks(loc(), launcher), () => uninstallClaudeHooks(loc()), () => claudeHooksStatus(loc())])
      assert.throws(run, /is not a regular file/);
    assert.ok(lstatSync(file()).isFIFO());
    rmSync(file());
    // /dev/zero through a followed link (user scope): a device, never read to its (missing) end
    const cfg = join(dir, 'cfg');
    mkdirSync(cfg);
    symlinkSync('/dev/zero', join(cfg, 'settings.json'));
    assert.throws(() => installClaudeHooks({ scope: 'user', env: { CLAUDE_CONFIG_DIR: cfg } }, launcher), /is not a regular file/);
    writeFileSync(file(), `{"pad":"${'x'.repeat(MAX_SETTINGS_BYTES)}"}`);
    assert.throws(() => installClaudeHooks(loc(), launcher), /larger than 4 MiB/);
  },
);

test('a change another program makes while we install is kept: the edit is applied again to the new content (issue 22, item 9)', () => {
  mkdirSync(join(ws, '.claude'));
  writeFileSync(file(), '{\n  "model": "a"\n}\n');
  let writes = 0;
  settingsWriteProbe.beforeCommit = () => {
    // Claude Code (or the person) saves a setting between our read and our rename, once, in place
    if (writes++ === 0) writeFileSync(file(), '{\n  "model": "b",\n  "theirs": 12345678901234567890\n}\n');
  };
  try {
    installClaudeHooks(loc(), launcher);
  } finally {
    settingsWriteProbe.beforeCommit = undefined;
  }
  assert.equal(writes, 2, 'applied again once');
  const after = readFileSync(file(), 'utf8');
  assert.ok(after.startsWith('{\n  "model": "b",\n  "theirs": 12345678901234567890,\n  "hooks"'), after);
  assert.deepEqual(readdirSync(join(ws, '.claude')), ['settings.local.json']);
  // a file that changes on every try: given up on, with their last version kept
  let n = 0;
  const installed = readFileSync(file(), 'utf8');
  settingsWriteProbe.beforeCommit = () => writeFileSync(file(), installed.replace('{', `{"n":${++n},`));
  try {
    assert.throws(() => uninstallClaudeHooks(loc()), /kept changing/);
  } finally {
    settingsWriteProbe.beforeCommit = undefined;
  }
  assert.equal(n, SETTINGS_EDIT_TRIES);
  assert.equal(readFileSync(file(), 'utf8'), installed.replace('{', `{"n":${n},`));
  assert.deepEqual(readdirSync(join(ws, '.claude')), ['settings.local.json']);
});

test('a write into the file we replace, by a program that opened it before our rename, is put back and the edit applied again (issue 22, item 9)', () => {
  mkdirSync(join(ws, '.claude'));
  writeFileSync(file(), '{\n  "model": "a"\n}\n');
  let fd: number | undefined;
  settingsWriteProbe.beforeCommit = () => {
    fd ??= openSync(file(), 'r+');
  };
  settingsWriteProbe.afterCommit = () => {
    if (fd === undefined || fd < 0) return;
    // their in-place write lands in the file our rename has just replaced
    const theirs = Buffer.from('{\n  "model": "b"\n}\n');
    ftruncateSync(fd, 0);
    writeSync(fd, theirs, 0, theirs.length, 0);
    closeSync(fd);
    fd = -1;
  };
  try {
    installClaudeHooks(loc(), launcher);
  } finally {
    settingsWriteProbe.beforeCommit = settingsWriteProbe.afterCommit = undefined;
  }
  const s = read();
  assert.equal(s.model, 'b');
  assert.ok(s.hooks.Stop && s.hooks.UserPromptSubmit);
  assert.deepEqual(readdirSync(join(ws, '.claude')), ['settings.local.json']);
});

test('user scope: $CLAUDE_CONFIG_DIR (first of a list), else ~/.claude', () => {
  assert.equal(claudeSettingsFile({ scope: 'user', env: { CLAUDE_CONFIG_DIR: '/a/cfg,/b/cfg' } }), '/a/cfg/settings.json');
  assert.equal(claudeSettingsFile({ scope: 'user', env: {}, homeDir: '/home/u' }), '/home/u/.claude/settings.json');
  const cfg = join(dir, 'cfg');
  const c = installClaudeHooks({ scope: 'user', env: { CLAUDE_CONFIG_DIR: cfg } }, launcher);
  assert.equal(c.file, join(cfg, 'settings.json'));
  assert.ok(JSON.parse(readFileSync(join(cfg, 'settings.json'), 'utf8')).hooks.UserPromptSubmit);
});
