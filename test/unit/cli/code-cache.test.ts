// dist/cli.js runs the CLI's bundle from V8's code cache (src/cli/code-cache.ts): the cache is used only for the
// bundle it was made from and only when it arrived whole, is made again when it cannot be used, and a hot command
// (a hook, a snapshot) replaces once a cache another command made. A process run with other Node options (V8 rejects a
// cache made under other flags) has a cache file of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cacheFileFor, decodeCache, encodeCache, nodeOptionsOf } from '../../../src/cli/code-cache';
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
  // runs the bundle as dist/cli.js does and says whether V8 took the cache; bundled, so that it runs with no Node
  // options of its own (tsx's would give it another cache)
  writeFileSync(
    join(dir, 'probe.ts'),
    `import { writeFileSync } from 'node:fs';
import { runBundle } from ${JSON.stringify(join(ROOT, 'src/cli/code-cache'))};
const status = runBundle(${JSON.stringify(bundle)}, module, process.argv[2]);
process.on('exit', () => writeFileSync(process.env.STATUS_FILE!, status));`,
  );
  bundleForNode(join(dir, 'probe.ts'), join(dir, 'probe.js'));
  cache = cacheFileFor(bundle);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ ...process.env, HOME: dir, AGENT_REWIND_HOME: '', AGENT_REWIND_SERVICE: 'off', NODE_OPTIONS: '' });

function cli(...args: string[]) {
  return cliWith([], ...args);
}

function cliWith(nodeArgs: string[], ...args: string[]) {
  return spawnSync(process.execPath, [...nodeArgs, join(dir, 'cli.js'), ...args], { cwd: dir, encoding: 'utf8', env: env() });
}

function probe(args: string[], nodeArgs: string[] = []): string {
  const statusFile = join(dir, 'status');
  const r = spawnSync(process.execPath, [...nodeArgs, join(dir, 'probe.js'), ...args], {
    cwd: dir,
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
  assert.equal(probe(['--help']), 'used');
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
  assert.equal(probe(['--help']), 'none');
  assert.ok(decodeCache(readFileSync(cache), hashOf(bundle)), 'made again');
  writeFileSync(cache, encodeCache(createHash('sha256').update('older bundle').digest(), 'hook', good.subarray(60)));
  assert.equal(probe(['--help']), 'none');
  assert.equal(probe(['--help']), 'used');
});

test('a process run with other Node options (the service is) keeps a cache of its own, and the plain one stays in use', () => {
  const serviceArgs = ['--max-semi-space-size=1'];
  const withOptions = cacheFileFor(bundle, nodeOptionsOf(serviceArgs, {}));
  assert.notEqual(withOptions, cache);
  rmSync(withOptions, { force: true });
  cli('--help');
  assert.equal(probe(['--help']), 'used');
  const plain = readFileSync(cache);
  // V8 rejects the plain cache under these flags: this process makes its own instead of replacing the plain one
  assert.equal(probe(['--help'], serviceArgs), 'none');
  assert.equal(cliWith(serviceArgs, '--help').status, 0);
  assert.deepEqual(readFileSync(cache), plain);
  assert.ok(existsSync(withOptions));
  assert.equal(probe(['--help']), 'used');
  assert.equal(probe(['--help'], serviceArgs), 'used');
  // NODE_OPTIONS are options too, and the same ones on the command line are another set
  assert.equal(
    cacheFileFor(bundle, nodeOptionsOf([], { NODE_OPTIONS: ' --max-semi-space-size=1 ' })),
    cacheFileFor(bundle, nodeOptionsOf([], { NODE_OPTIONS: '--max-semi-space-size=1' })),
  );
  assert.notEqual(cacheFileFor(bundle, nodeOptionsOf([], { NODE_OPTIONS: '--max-semi-space-size=1' })), withOptions);
  assert.equal(nodeOptionsOf([], { NODE_OPTIONS: '  ' }), '');
});
