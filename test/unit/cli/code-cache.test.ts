// dist/cli.js runs the CLI's bundle from V8's code cache (src/cli/code-cache.ts): the cache is used only for the
// bundle it was made from and only when it arrived whole, is made again when it cannot be used, and a hot command
// (a hook, a snapshot) replaces once a cache another command made.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cacheFileFor, decodeCache, encodeCache } from '../../../src/cli/code-cache';
import { bundleForNode } from '../../support/node-bundle';
import { bundleCli } from '../files/helpers';

const ROOT = resolve(__dirname, '../../..');
let dir: string;
let bundle: string;
let cache: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-code-cache-'));
  bundle = bundleCli(join(dir, 'cli-bundle.js'));
  bundleForNode(join(ROOT, 'src/cli/start.ts'), join(dir, 'cli.js'));
  // runs the bundle as dist/cli.js does and says whether V8 took the cache
  writeFileSync(
    join(dir, 'probe.cjs'),
    `const { runBundle } = require(${JSON.stringify(join(ROOT, 'src/cli/code-cache.ts'))});
const status = runBundle(${JSON.stringify(bundle)}, module, process.argv[2]);
process.on('exit', () => require('node:fs').writeFileSync(process.env.STATUS_FILE, status));`,
  );
  cache = cacheFileFor(bundle);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ ...process.env, HOME: dir, AGENT_REWIND_HOME: '', AGENT_REWIND_SERVICE: 'off' });

function cli(...args: string[]) {
  return spawnSync(process.execPath, [join(dir, 'cli.js'), ...args], { cwd: dir, encoding: 'utf8', env: env() });
}

function probe(...args: string[]): string {
  const statusFile = join(dir, 'status');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(dir, 'probe.cjs'), ...args], {
    cwd: ROOT, // where tsx resolves
    encoding: 'utf8',
    env: { ...env(), STATUS_FILE: statusFile },
  });
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(statusFile, 'utf8');
}

const hashOf = (file: string) => createHash('sha256').update(readFileSync(file)).digest();

test('the cache file: read back only for the same bundle, whole', () => {
  const h = createHash('sha256').update('bundle').digest();
  const data = Buffer.from('cached data of V8');
  const file = encodeCache(h, 'hook', data);
  assert.deepEqual(decodeCache(file, h), { data, producer: 'hook' });
  assert.equal(decodeCache(file, createHash('sha256').update('another bundle').digest()), undefined);
  const flipped = Buffer.from(file);
  flipped[flipped.length - 3]! ^= 1;
  assert.equal(decodeCache(flipped, h), undefined);
  assert.equal(decodeCache(file.subarray(0, file.length - 1), h), undefined);
  assert.equal(decodeCache(Buffer.alloc(0), h), undefined);
});

test('dist/cli.js runs the CLI, writes the cache once, and its next run takes it', () => {
  rmSync(cache, { force: true });
  const first = cli('--help');
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, /^usage: agent-rewind <command>/);
  assert.equal(decodeCache(readFileSync(cache), hashOf(bundle))?.producer, 'other');
  const before = statSync(cache).mtimeMs;
  assert.equal(cli('--help').stdout, first.stdout);
  assert.equal(statSync(cache).mtimeMs, before, 'a cache that fits is not written again');
  assert.equal(probe('--help'), 'used');
});

test('a hook or snapshot replaces, once, a cache another command made', () => {
  rmSync(cache, { force: true });
  cli('--help');
  const r = cli('snapshot', join(dir, 'missing.jsonl'), '--anchor', 'x');
  assert.equal(r.status, 1, r.stderr);
  assert.equal(decodeCache(readFileSync(cache), hashOf(bundle))?.producer, 'snapshot');
  const before = readFileSync(cache);
  cli('--help');
  cli('hook', 'codex', '--home', join(dir, 'home'));
  assert.deepEqual(readFileSync(cache), before);
});

test('a damaged cache, or one made for another bundle, is not given to V8 and is made again', () => {
  cli('--help');
  const good = readFileSync(cache);
  const damaged = Buffer.from(good);
  damaged[damaged.length - 100]! ^= 0xff;
  writeFileSync(cache, damaged);
  assert.equal(probe('--help'), 'none');
  assert.ok(decodeCache(readFileSync(cache), hashOf(bundle)), 'made again');
  writeFileSync(cache, encodeCache(createHash('sha256').update('older bundle').digest(), 'hook', good.subarray(60)));
  assert.equal(probe('--help'), 'none');
  assert.equal(probe('--help'), 'used');
});
