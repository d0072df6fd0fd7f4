// What dist/cli.js is: a few lines that run the CLI's bundle (dist/cli-bundle.js) from V8's code cache, kept beside
// it. A fresh process (every hook, every CLI call) otherwise compiles the 1 MB bundle and then each function it runs,
// ~15-25 ms of a snapshot that must stay near git's own time. Node 20 has no module.enableCompileCache, and VS Code's
// Electron may run the CLI too, so the cache is ours: one file per V8 version and architecture, tied to the bundle's
// sha256, checked with its own CRC (V8 checks its cached data only against the source length, and not its bytes in
// release builds), written atomically, and simply not used when anything about it is off. It is imported by nothing
// but the loader bundle: the CLI itself never depends on it.
// V8 also rejects a cache made under other V8 flags, and the same cli.js runs with other Node options: the checkpoint
// service a hook starts runs it as `node --max-semi-space-size=1 cli.js serve`, and a user may set NODE_OPTIONS. With
// one file, each such process rewrote the cache the next plain hook then found rejected (and rewrote back): that hook
// compiled the bundle again (~25 ms more to load it, its functions compiled as they ran, the cache written at exit).
// So each set of options has a cache file of its own.
import { accessSync, constants, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

const MAGIC = 0x43575241; // 'ARWC' little-endian
const VERSION = 1;
/** magic, version, bundle sha256 (32), producer (16, NUL-padded), payload CRC-32 */
const HEAD = 4 + 4 + 32 + 16 + 4;
/** Commands whose run is worth caching the functions of: the ones hooks and agents run once per prompt. A cache made
 *  by another command (`--help`, `hooks install`) holds little of what they run, so one of these replaces it once. */
const HOT = new Set(['hook', 'snapshot', 'append']);

/** The Node options V8's flags may come from: the command line's before the script, then NODE_OPTIONS ('' for a plain
 *  `node cli.js`). Options that do not touch V8's flags count too: they only cost a process of their own a cache. */
export function nodeOptionsOf(execArgv: readonly string[] = process.execArgv, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.NODE_OPTIONS?.trim();
  return execArgv.length === 0 && !fromEnv ? '' : JSON.stringify([execArgv, fromEnv ?? '']);
}

/** The cache of a process run with `options` (nodeOptionsOf): a file for each set of options, so that no two of them
 *  take turns in one (a user's NODE_OPTIONS is in the hooks' set and in the service's, each with its own). */
export function cacheFileFor(bundle: string, options = '', v8 = process.versions.v8, arch = process.arch): string {
  const withOptions = options === '' ? '' : `-o${createHash('sha256').update(options).digest('hex').slice(0, 12)}`;
  return `${bundle}.${v8.replace(/[^0-9A-Za-z.-]/g, '_')}-${arch}${withOptions}.cache`;
}

export function encodeCache(bundleHash: Buffer, producer: string, data: Buffer): Buffer {
  const out = Buffer.alloc(HEAD + data.length);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(VERSION, 4);
  bundleHash.copy(out, 8);
  out.write(producer.slice(0, 16), 40, 16, 'latin1');
  out.writeUInt32LE(crc32(data), 56);
  data.copy(out, HEAD);
  return out;
}

/** The cached data in `file` when it was made for exactly this bundle and arrived whole; else undefined. */
export function decodeCache(file: Buffer, bundleHash: Buffer): { data: Buffer; producer: string } | undefined {
  if (file.length <= HEAD || file.readUInt32LE(0) !== MAGIC || file.readUInt32LE(4) !== VERSION) return undefined;
  if (!file.subarray(8, 40).equals(bundleHash)) return undefined;
  const data = file.subarray(HEAD);
  if (crc32(data) !== file.readUInt32LE(56)) return undefined;
  return { data, producer: file.toString('latin1', 40, 56).replace(/\0+$/, '') };
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Runs `bundle` (a CommonJS file) as the main module `main` would be, from the code cache when one fits; at exit,
 * writes a cache when there was none that fit (or only one made by a command that is not hot, and this one is).
 */
export function runBundle(bundle: string, main: NodeModule, command: string | undefined): 'used' | 'none' | 'rejected' {
  const bytes = readFileSync(bundle);
  const hash = createHash('sha256').update(bytes).digest();
  const cacheFile = cacheFileFor(bundle, nodeOptionsOf());
  const found = (() => {
    const file = readOrUndefined(cacheFile);
    return file && decodeCache(file, hash);
  })();
  // esbuild writes ASCII only (non-ASCII is escaped), so latin1 is the text, decoded faster than UTF-8
  const source = bytes.toString('latin1');
  // the wrapper Node puts around every CommonJS file, on the bundle's first line so its line numbers stay right
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, {
    filename: bundle,
    cachedData: found?.data,
  });
  const stale = !found || script.cachedDataRejected === true || (!HOT.has(found.producer) && command !== undefined && HOT.has(command));
  if (stale) process.once('exit', () => writeCache(script, cacheFile, hash, command ?? ''));
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  // the loader's own module stands for the bundle's, so `require.main === module` holds in it as it does when
  // Node runs the bundle directly
  wrapper.call(main.exports, main.exports, createRequire(bundle), main, bundle, dirname(bundle));
  return !found ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
}

function writeCache(script: Script, cacheFile: string, hash: Buffer, producer: string): void {
  const dir = dirname(cacheFile);
  try {
    accessSync(dir, constants.W_OK); // a read-only install: not even the cache's serialisation is paid for
  } catch {
    return;
  }
  const tmp = join(dir, `.${randomBytes(6).toString('hex')}.cache-tmp`);
  try {
    writeFileSync(tmp, encodeCache(hash, HOT.has(producer) ? producer : 'other', script.createCachedData()));
    renameSync(tmp, cacheFile);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      /* never written */
    }
  }
}
