// `agent-rewind hooks install|uninstall claude`: usage errors (exit 2) and a broken settings file (exit 1, untouched).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
      assert.match(r.stderr, /usage: agent-rewind hooks install\|uninstall claude/);
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
