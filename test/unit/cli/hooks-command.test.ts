// `agent-rewind hooks install|uninstall claude`: usage errors (exit 2) and a broken settings file (exit 1, untouched).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../../src/cli/main';

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const write = process.stderr.write;
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  }) as typeof process.stderr.write;
  try {
    return { code: await runCli(args), stderr };
  } finally {
    process.stderr.write = write;
  }
}

test('hooks: usage errors exit 2 and write nothing; a settings file that is not JSON exits 1 and is left as it is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-hooks-cli-'));
  try {
    const ws = join(dir, 'ws');
    mkdirSync(join(ws, '.claude'), { recursive: true });
    for (const args of [
      ['hooks'],
      ['hooks', 'install'],
      ['hooks', 'install', 'cursor'],
      ['hooks', 'frob', 'claude'],
      ['hooks', 'install', 'claude', 'extra'],
      ['hooks', 'install', 'claude', '--user', '--cwd', ws],
    ]) {
      const r = await cli([...args, '--home', join(dir, 'home')]);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /usage: agent-rewind hooks install\|uninstall <agent: claude\|codex(\|[a-z-]+)*>/);
    }
    const file = join(ws, '.claude', 'settings.local.json');
    writeFileSync(file, '{"hooks": {');
    for (const action of ['install', 'uninstall']) {
      const r = await cli(['hooks', action, 'claude', '--cwd', ws, '--home', join(dir, 'home')]);
      assert.equal(r.code, 1, action);
      assert.match(r.stderr, /settings\.local\.json is not valid JSON/);
    }
    assert.equal(readFileSync(file, 'utf8'), '{"hooks": {');
    const missing = await cli(['hooks', 'install', 'claude', '--cwd', join(dir, 'nope'), '--home', join(dir, 'home')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /does not exist/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'hooks install writes the launcher into <home>/bin and points both agents at it; a reinstall upgrades an older handler',
  { skip: process.platform === 'win32' },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ar-hooks-cli-'));
    try {
      const ws = join(dir, 'ws');
      const home = join(dir, 'home');
      mkdirSync(join(ws, '.claude'), { recursive: true });
      const file = join(ws, '.claude', 'settings.local.json');
      // what an earlier version installed: this node and the CLI script, exec form
      const old = { type: 'command', command: process.execPath, args: ['/old/dist/cli.js', 'hook', 'claude'], timeout: 30 };
      writeFileSync(file, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [old] }] } }));
      assert.equal((await cli(['hooks', 'install', 'claude', '--cwd', ws, '--home', home, '--no-baseline'])).code, 0);
      const launcher = join(home, 'bin', 'agent-rewind');
      assert.equal(statSync(launcher).mode & 0o777, 0o755);
      const script = readFileSync(launcher, 'utf8');
      assert.match(script, /^#!\/bin\/sh\n/);
      assert.ok(script.includes(`arw_home='${home}'`), 'the home is baked in');
      assert.ok(script.includes('--unix-socket "$arw_sock"'));
      const settings = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, { hooks: unknown[] }[]> };
      for (const event of ['UserPromptSubmit', 'Stop']) {
        assert.deepEqual(
          settings.hooks[event]!.flatMap((g) => g.hooks),
          [{ type: 'command', command: launcher, args: ['hook', 'claude'], timeout: 30, installedBy: 'agent-rewind' }],
        );
      }
      const before = readFileSync(file, 'utf8');
      assert.equal((await cli(['hooks', 'install', 'claude', '--cwd', ws, '--home', home, '--no-baseline'])).code, 0);
      assert.equal(readFileSync(file, 'utf8'), before, 'installing again changes nothing');
      // Codex: the same launcher, as a shell command line
      const codexHome = join(dir, 'codex');
      const saved = process.env.CODEX_HOME;
      process.env.CODEX_HOME = codexHome;
      try {
        assert.equal((await cli(['hooks', 'install', 'codex', '--user', '--home', home])).code, 0);
      } finally {
        if (saved === undefined) delete process.env.CODEX_HOME;
        else process.env.CODEX_HOME = saved;
      }
      const hooks = JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
      assert.deepEqual(
        hooks.hooks.UserPromptSubmit!.flatMap((g) => g.hooks.map((h) => h.command)),
        [`${launcher} hook codex`],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
