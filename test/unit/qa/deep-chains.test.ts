// No recursion over user-controlled depth: a session whose entries form one 50,000-deep chain (every entry the child
// of the one before, as a long agent run writes them) and a workspace nested 2,000 folders deep are read, shown,
// snapshotted and restored without "Maximum call stack size exceeded".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '../../../src/core/session/session-manager';
import { Conversation } from '../../../src/core/branches/conversation';
import { FileCheckpointer } from '../../../src/core/files';
import { cliHarness } from './cli-harness';

const DEPTH = 50_000;

function deepSession(file: string, cwd: string): string {
  const lines = [JSON.stringify({ type: 'session', version: 3, id: 'deep-1', timestamp: '2025-01-01T00:00:00.000Z', cwd })];
  let parent: string | null = null;
  for (let i = 0; i < DEPTH; i++) {
    const id = `e${i}`;
    const role = i % 2 === 0 ? 'user' : 'assistant';
    const message = role === 'user' ? { role, content: `q${i}` } : { role, content: [{ type: 'text', text: `a${i}` }] };
    lines.push(JSON.stringify({ type: 'message', id, parentId: parent, timestamp: '2025-01-01T00:00:01.000Z', message }));
    parent = id;
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return parent!;
}

test('a 50,000-deep entry chain: context, path, branches and a rewind work in process', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-deep-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'deep.jsonl');
  const leaf = deepSession(file, dir);
  const s = await SessionManager.open(file, { home: dir, deferUntilAssistant: false });
  assert.equal(s.getLeafId(), leaf);
  assert.equal(s.buildSessionContext().messages.length, DEPTH);
  assert.equal(s.getPath().length, DEPTH);
  const c = new Conversation(s);
  const branches = await c.branches();
  assert.equal(branches.length, 1);
  await c.rewind('e10');
  assert.equal((await c.branches()).length, 2);
  await s.close();
});

test('a 50,000-deep entry chain: the CLI context, tree, branches and sessions commands work', async (t) => {
  const cli = cliHarness();
  t.after(() => cli.dispose());
  const file = join(cli.dir, 'deep.jsonl');
  deepSession(file, cli.work);
  for (const args of [
    ['context', file],
    ['context', file, '--json'],
    ['tree', file],
    ['tree', file, '--json'],
    ['branches', file],
  ]) {
    const r = cli.run(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr.slice(0, 500)}`);
    assert.doesNotMatch(r.stderr, /call stack/);
  }
});

test('a workspace nested 2,000 folders deep is snapshotted, diffed, restored and gc-ed', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'ar-deepws-'));
  // Node's own fs.rmSync recurses per level and overflows on this tree: rm(1) removes it
  const rmTree = (p: string) => assert.equal(spawnSync('rm', ['-rf', p]).status, 0);
  t.after(() => rmTree(base));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  // relative paths from inside keep every call under PATH_MAX; the depth the filesystem allows is what is tested
  let depth = 0;
  let rel = '';
  for (; depth < 2000; depth++) {
    const next = rel ? `${rel}/d` : 'd';
    try {
      mkdirSync(join(ws, next));
    } catch {
      break;
    }
    rel = next;
    if (join(ws, rel).length > 3900) break;
  }
  t.diagnostic(`nested ${depth} folders deep`);
  assert.ok(depth >= 1000, `only ${depth} levels`);
  writeFileSync(join(ws, rel, 'leaf.txt'), 'deep\n');
  const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base, 'home') });
  await fc.snapshot('s', 'u1', 'user-message');
  writeFileSync(join(ws, rel, 'leaf.txt'), 'changed\n');
  // (a deleted 2,000-deep subtree brought back by a restore is left to the restore's own tests: restore.ts checks
  // each parent of each path, which is quadratic in the depth)
  const anchor = { checkpointingEnabled: true, kind: 'user-message' as const };
  const res = await fc.rewindFiles('s', 'u1', { dryRun: false, anchor });
  assert.ok(res.filesChanged.includes(`${rel}/leaf.txt`));
  assert.equal(readFileSync(join(ws, rel, 'leaf.txt'), 'utf8'), 'deep\n');
  await fc.gc();
  await fc.dispose();
  // a fresh process reads the stat index of the deep tree back
  const again = new FileCheckpointer({ workspaceRoot: ws, home: join(base, 'home') });
  await again.undoLastRewind('s');
  assert.equal(readFileSync(join(ws, rel, 'leaf.txt'), 'utf8'), 'changed\n');
  await again.dispose();
});
