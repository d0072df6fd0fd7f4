// A fresh process (the CLI) re-checks the workspace through the persisted stat cache of earlier runs rather than
// from nothing. That cache is only an optimisation: whatever it holds, stale or damaged, the snapshot must be exactly
// the one a process with no cache at all takes. Random batches of real file-system changes, compared after each.
//
// Edits that keep size and mtime are generated too (issue 22): a same-size edit with its mtime put back to the
// nanosecond (touch -r), a backup of the same size restored with its stamps (cp -p), an entry added to a folder whose
// mtime is then put back (tar x). Like git, the cache compares ctime (which no user-space call can set back), inode
// and device as well as size, mtime and mode, so it sees them. What no test can make is a change that keeps the ctime
// too: two writes within one timestamp tick, which the racy rule covers (a file whose mtime or ctime was recent when
// it was hashed is hashed again by the next scan). "sameTick" writes again a file less than a second old with its
// mtime put back, the nearest a test comes to that.
//
// The scans here use a racy window of 50 ms instead of 2 s (still longer than any kernel timestamp tick): utimes()
// ages an mtime but sets the ctime to now, so with 2 s nearly every file would be re-hashed and the cache's fast
// paths never taken.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFile, chmod, cp, lstat, lutimes, mkdir, readdir, readFile, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { FileCheckpointer, type SnapshotSummary } from '../../../src/core/files';
import { ServiceFirstCheckpoints } from '../../../src/core/service';
import { CONNECT_UNDER_LOAD_MS, tempBase, writeTree } from './helpers';

const MAX_FILE = 64;
const EXCLUDE = ['**/*.tmp'];
/** See the top: longer than any timestamp tick, short enough that aged files take the cache's fast paths. */
const TUNING = { racyMs: 50 };

/** An index into the matching paths of the tree as it is when the mutation runs (modulo their count). */
const pick = fc.nat({ max: 1000 });
const dirName = fc.constantFrom('a', 'b', 'c', 'out', '.hidden');
const fileName = fc.constantFrom('f1.txt', 'f2.txt', 'x.log', 'keep.log', 'run.sh', 'z.tmp', 'data.bin', 'ln1');
const size = fc.nat({ max: MAX_FILE + 16 }); // now and then over the limit, so files move in and out of `skipped`
const fill = fc.nat({ max: 3 }); // few distinct contents: identical blobs in several places happen
const ignoreLine = fc.constantFrom(
  '*.log',
  '!keep.log',
  'out/',
  '/a',
  'b',
  'c/**/f*',
  '*.bin',
  '!data.bin',
  'f1.txt',
  '!f2.txt',
  '.hidden',
  '**/out',
  '*.sh',
  '.gitignore',
  'f*',
  '!f1.txt',
  'ln*',
);
const linkTarget = fc.constantFrom('f1.txt', '../f1.txt', 'a', '../a/f2.txt', '.', 'nowhere', '../missing/x', '/nonexistent/agent-rewind-target');

type Mutation =
  | { op: 'create'; dir: number; sub: string[]; name: string; size: number; fill: number }
  | { op: 'rewrite'; file: number; size: number; fill: number }
  | { op: 'sameSize'; file: number; at: number }
  | { op: 'append'; file: number; size: number }
  | { op: 'delete'; entry: number }
  | { op: 'renameFile'; file: number; dir: number; name: string }
  | { op: 'moveOver'; file: number; over: number }
  | { op: 'sameTick'; file: number; at: number }
  | { op: 'keepStamp'; file: number; at: number }
  | { op: 'restoreBackup'; file: number; fill: number }
  | { op: 'tarDir'; dir: number; name: string; size: number; fill: number }
  | { op: 'renameDir'; dir: number; to: number; name: string }
  | { op: 'chmod'; file: number; exec: boolean }
  | { op: 'rmrf'; dir: number }
  | { op: 'fileToDir'; file: number; fill: number }
  | { op: 'dirToFile'; dir: number; size: number; fill: number }
  | { op: 'symlink'; dir: number; name: string; target: string }
  | { op: 'retarget'; link: number; target: string }
  | { op: 'gitignore'; dir: number; nested: boolean; lines: string[] }
  | { op: 'gitignoreDelete'; file: number }
  | { op: 'big'; dir: number; atRoot: boolean; extra: number }
  | { op: 'nestedGit'; dir: number; asFile: boolean }
  | { op: 'touchDir'; dir: number; toPast: boolean }
  | { op: 'age' };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('create' as const), dir: pick, sub: fc.array(dirName, { maxLength: 2 }), name: fileName, size, fill }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('rewrite' as const), file: pick, size, fill }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('sameSize' as const), file: pick, at: pick }), weight: 2 },
  fc.record({ op: fc.constant('append' as const), file: pick, size: fc.integer({ min: 1, max: 20 }) }),
  { arbitrary: fc.record({ op: fc.constant('delete' as const), entry: pick }), weight: 2 },
  fc.record({ op: fc.constant('renameFile' as const), file: pick, dir: pick, name: fileName }),
  // aged files share a stamp and many have the same size: only the inode tells the moved one from the old one
  fc.record({ op: fc.constant('moveOver' as const), file: pick, over: pick }),
  fc.record({ op: fc.constant('renameDir' as const), dir: pick, to: pick, name: dirName }),
  // edits that keep size and mtime, as tools that preserve timestamps make them
  { arbitrary: fc.record({ op: fc.constant('keepStamp' as const), file: pick, at: pick }), weight: 2 },
  fc.record({ op: fc.constant('restoreBackup' as const), file: pick, fill }),
  fc.record({ op: fc.constant('tarDir' as const), dir: pick, name: fileName, size, fill }),
  fc.record({ op: fc.constant('chmod' as const), file: pick, exec: fc.boolean() }),
  fc.record({ op: fc.constant('rmrf' as const), dir: pick }),
  fc.record({ op: fc.constant('fileToDir' as const), file: pick, fill }),
  fc.record({ op: fc.constant('dirToFile' as const), dir: pick, size, fill }),
  fc.record({ op: fc.constant('symlink' as const), dir: pick, name: fc.constantFrom('ln1', 'ln2', 'f1.txt'), target: linkTarget }),
  fc.record({ op: fc.constant('retarget' as const), link: pick, target: linkTarget }),
  {
    arbitrary: fc.record({
      op: fc.constant('gitignore' as const),
      dir: pick,
      nested: fc.boolean(),
      lines: fc.array(ignoreLine, { minLength: 1, maxLength: 4 }),
    }),
    weight: 2,
  },
  fc.record({ op: fc.constant('gitignoreDelete' as const), file: pick }),
  fc.record({ op: fc.constant('big' as const), dir: pick, atRoot: fc.boolean(), extra: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ op: fc.constant('nestedGit' as const), dir: pick, asFile: fc.boolean() }),
  fc.record({ op: fc.constant('touchDir' as const), dir: pick, toPast: fc.boolean() }),
  // without it nearly every file is "racy" (modified within 2 s) and the cache's fast paths are never taken
  { arbitrary: fc.constant<Mutation>({ op: 'age' }), weight: 3 },
);

/**
 * Damage to the stat cache file(s): emptied, cut short, junk appended, put back as an earlier round left them
 * (valid but stale), or random bytes overwritten anywhere (see the last two tests).
 */
type Corruption =
  { how: 'empty' | 'junk' } | { how: 'truncate'; at: number } | { how: 'stale'; round: number } | { how: 'garble'; at: number[]; bytes: number[] };
const fraction = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const detectable: fc.Arbitrary<Corruption> = fc.oneof(
  fc.record({ how: fc.constantFrom('empty' as const, 'junk' as const) }),
  fc.record({ how: fc.constant('truncate' as const), at: fraction }),
  fc.record({ how: fc.constant('stale' as const), round: fc.nat() }),
);
const garbled: fc.Arbitrary<Corruption> = fc.record({
  how: fc.constant('garble' as const),
  at: fc.array(fraction, { minLength: 1, maxLength: 4 }),
  bytes: fc.array(fc.nat({ max: 255 }), { minLength: 4, maxLength: 4 }),
});

interface Batch {
  mutations: Mutation[];
  /** When the long-lived instance snapshots, relative to this batch's fresh process (it shares its store). */
  longLived: 'before' | 'after' | 'skip';
  /** Damage done to the stat cache file(s) after this batch's fresh process saved them. */
  corrupt: Corruption | null;
  /** Age the batch's changes before the snapshots (most CLI calls see files written seconds or more ago). */
  ageAfter: boolean;
  /** First of all, a "sameTick" write to a file the previous round's snapshots saw as racy, if there is one. */
  sameTick: Mutation | null;
}
const batchWith = (corruption: fc.Arbitrary<Corruption>): fc.Arbitrary<Batch> =>
  fc.record({
    mutations: fc.array(mutation, { minLength: 1, maxLength: 5 }),
    longLived: fc.constantFrom('before' as const, 'after' as const, 'skip' as const),
    corrupt: fc.option(corruption, { freq: 3 }),
    ageAfter: fc.boolean(),
    sameTick: fc.option(fc.record({ op: fc.constant('sameTick' as const), file: pick, at: pick }), { freq: 2 }),
  });

/** Where every case starts: a few folders deep, with a link, an executable and duplicate contents, all aged. */
const INITIAL: Record<string, string> = {
  'f1.txt': 'one\n',
  'f2.txt': 'two\n',
  'x.log': 'log\n',
  'a/f1.txt': 'one\n',
  'a/f2.txt': 'uno\n',
  'a/b/f1.txt': 'dos\n',
  'a/b/x.log': 'ab log\n',
  'b/run.sh': '#!/bin/sh\necho hi\n',
  'b/keep.log': 'kep\n',
  'c/data.bin': 'dat\n',
  'c/out/f1.txt': 'c out one\n',
  '.hidden/f2.txt': 'hid\n',
};

interface TreeListing {
  /** Real folders ('' is the root), never inside a `.git`. */
  dirs: string[];
  files: string[];
  links: string[];
  gitignores: string[];
}

async function listTree(ws: string): Promise<TreeListing> {
  const out: TreeListing = { dirs: [''], files: [], links: [], gitignores: [] };
  const walk = async (rel: string) => {
    for (const name of (await readdir(join(ws, rel))).sort()) {
      if (name === '.git') continue;
      const r = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(ws, r));
      if (st.isSymbolicLink()) out.links.push(r);
      else if (st.isDirectory()) {
        out.dirs.push(r);
        await walk(r);
      } else if (st.isFile()) {
        out.files.push(r);
        if (name === '.gitignore') out.gitignores.push(r);
      }
    }
  };
  await walk('');
  return out;
}

const nth = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);
const under = (p: string, dir: string) => p === dir || p.startsWith(dir + '/');
const child = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed * 7919 + n;
  for (let i = 0; i < n; i++) b[i] = 97 + ((x = (x * 1103515245 + 12345) % 2 ** 31) % 26);
  return b;
}

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    () => false,
  );
}

/** The real file-system side of the test: applies mutations and says what it did, shell-style, for a reproduction. */
class Workspace {
  /** Stamps used by "age": strictly increasing and in the past, so no file ever gets an mtime it had before. */
  private clock = Date.now() - 10 * 86_400_000;
  readonly log: string[] = [];

  constructor(readonly root: string) {}

  private abs(rel: string): string {
    return rel ? join(this.root, rel) : this.root;
  }

  private nextStamp(): Date {
    this.clock += 1000;
    return new Date(this.clock);
  }

  async apply(m: Mutation): Promise<void> {
    const t = await listTree(this.root);
    const did = await this.applyTo(t, m);
    if (did) this.log.push(did);
  }

  /** Returns a shell-like description of what changed, or undefined when the mutation did not apply here. */
  private async applyTo(t: TreeListing, m: Mutation): Promise<string | undefined> {
    const subDirs = t.dirs.filter((d) => d !== '');
    switch (m.op) {
      case 'create': {
        let dir = nth(t.dirs, m.dir)!;
        for (const s of m.sub) {
          dir = child(dir, s);
          const st = await lstat(this.abs(dir)).catch(() => undefined);
          if (st && !st.isDirectory()) return undefined; // a file or a link is in the way: mkdir -p would fail
        }
        const rel = child(dir, m.name);
        if ((await lstat(this.abs(rel)).catch(() => undefined))?.isDirectory()) return undefined;
        await mkdir(this.abs(dir), { recursive: true });
        await rm(this.abs(rel), { force: true }); // a link there is replaced, not written through
        await writeFile(this.abs(rel), bytes(m.size, m.fill));
        return `mkdir -p '${dir}' && write ${m.size} bytes (fill ${m.fill}) > '${rel}'`;
      }
      case 'rewrite': {
        const f = nth(t.files, m.file);
        if (!f) return undefined;
        const old = (await lstat(this.abs(f))).size;
        const n = m.size === old ? m.size + 1 : m.size;
        await writeFile(this.abs(f), bytes(n, m.fill + 10));
        return `write ${n} bytes (fill ${m.fill + 10}, was ${old}) > '${f}'`;
      }
      case 'sameSize': {
        const f = nth(t.files, m.file);
        if (!f) return undefined;
        const data = await readFile(this.abs(f));
        if (data.length === 0) return undefined;
        const i = m.at % data.length;
        data[i] = (data[i]! + 1) % 256; // one byte differs, the size does not
        await writeFile(this.abs(f), data);
        return `flip byte ${i} of '${f}' (same size)`;
      }
      case 'append': {
        const f = nth(t.files, m.file);
        if (!f) return undefined;
        await appendFile(this.abs(f), bytes(m.size, 9));
        return `append ${m.size} bytes >> '${f}'`;
      }
      case 'delete': {
        const e = nth([...t.files, ...t.links], m.entry);
        if (!e) return undefined;
        await rm(this.abs(e));
        return `rm '${e}'`;
      }
      case 'renameFile': {
        const f = nth(t.files, m.file);
        if (!f) return undefined;
        const to = child(nth(t.dirs, m.dir)!, m.name);
        if (to === f || (await lstat(this.abs(to)).catch(() => undefined))?.isDirectory()) return undefined;
        await rename(this.abs(f), this.abs(to)); // over an existing file or link too, like mv
        return `mv '${f}' '${to}'`;
      }
      case 'moveOver': {
        const f = nth(t.files, m.file);
        const g = nth(
          t.files.filter((x) => x !== f),
          m.over,
        );
        if (!f || !g) return undefined;
        await rename(this.abs(f), this.abs(g));
        return `mv '${f}' '${g}' (over an existing file)`;
      }
      case 'sameTick': {
        // a second write within the same mtime tick (coarse timestamps): only for a file so recent that any scan
        // since its last write saw it as racy, which a stat cache must re-hash
        const recent: string[] = [];
        for (const x of t.files) if (Date.now() - (await lstat(this.abs(x))).mtimeMs < 1000) recent.push(x);
        const f = nth(recent, m.file);
        if (!f) return undefined;
        const st = await lstat(this.abs(f), { bigint: true });
        if (st.size === 0n) return undefined;
        const data = await readFile(this.abs(f));
        const i = m.at % data.length;
        data[i] = (data[i]! + 1) % 256;
        await writeFile(this.abs(f), data);
        putMtimeBack(this.abs(f), st.mtimeNs);
        return `flip byte ${i} of '${f}' (same size) and put its mtime back (a write in the same tick)`;
      }
      case 'keepStamp': {
        const f = nth(t.files, m.file);
        if (!f) return undefined;
        const st = await lstat(this.abs(f), { bigint: true });
        const data = await readFile(this.abs(f));
        if (data.length === 0) return undefined;
        const i = m.at % data.length;
        data[i] = (data[i]! + 1) % 256;
        await writeFile(this.abs(f), data);
        putMtimeBack(this.abs(f), st.mtimeNs);
        return `flip byte ${i} of '${f}' (same size) and touch -r it back to its old mtime`;
      }
      case 'restoreBackup': {
        // a backup of the same size, other content, the same stamps: cp -p puts its content, mode and times in place
        const f = nth(t.files, m.file);
        if (!f) return undefined;
        const old = await readFile(this.abs(f));
        const backup = join(dirname(this.root), 'backup.bin');
        let data = bytes(old.length, m.fill + 20);
        if (data.equals(old)) data = Buffer.from(old.map((b) => (b + 1) % 256));
        if (data.length === 0) return undefined;
        await writeFile(backup, data);
        execFileSync('touch', ['-r', this.abs(f), backup]);
        execFileSync('cp', ['-p', backup, this.abs(f)]);
        return `cp -p a backup of the same size and stamps over '${f}'`;
      }
      case 'tarDir': {
        // tar x: an entry appears in a folder, then the folder's mtime is put back as the archive had it
        const d = nth(t.dirs, m.dir)!;
        const rel = child(d, m.name);
        if (await exists(this.abs(rel))) return undefined;
        const st = await lstat(this.abs(d), { bigint: true });
        await writeFile(this.abs(rel), bytes(m.size, m.fill));
        const when = this.nextStamp();
        await utimes(this.abs(rel), when, when);
        putMtimeBack(this.abs(d), st.mtimeNs);
        return `write ${m.size} bytes > '${rel}' and touch -r '${d || '.'}' back to its old mtime (tar x)`;
      }
      case 'renameDir': {
        const d = nth(subDirs, m.dir);
        if (!d) return undefined;
        const to = child(
          nth(
            t.dirs.filter((x) => !under(x, d)),
            m.to,
          )!,
          m.name,
        );
        if (await exists(this.abs(to))) return undefined;
        await rename(this.abs(d), this.abs(to));
        return `mv '${d}' '${to}'`;
      }
      case 'chmod': {
        const f = nth(t.files, m.file);
        if (!f) return undefined;
        await chmod(this.abs(f), m.exec ? 0o755 : 0o644);
        return `chmod ${m.exec ? 755 : 644} '${f}'`;
      }
      case 'rmrf': {
        const d = nth(subDirs, m.dir);
        if (!d) return undefined;
        await rm(this.abs(d), { recursive: true });
        return `rm -rf '${d}'`;
      }
      case 'fileToDir': {
        const f = nth(t.files, m.file);
        if (!f) return undefined;
        await rm(this.abs(f));
        await mkdir(this.abs(f));
        await writeFile(this.abs(child(f, 'f1.txt')), bytes(5, m.fill));
        return `rm '${f}' && mkdir '${f}' && write 5 bytes > '${f}/f1.txt'`;
      }
      case 'dirToFile': {
        const d = nth(subDirs, m.dir);
        if (!d) return undefined;
        await rm(this.abs(d), { recursive: true });
        await writeFile(this.abs(d), bytes(m.size, m.fill));
        return `rm -rf '${d}' && write ${m.size} bytes > '${d}'`;
      }
      case 'symlink': {
        const rel = child(nth(t.dirs, m.dir)!, m.name);
        if ((await lstat(this.abs(rel)).catch(() => undefined))?.isDirectory()) return undefined;
        await rm(this.abs(rel), { force: true });
        await symlink(m.target, this.abs(rel));
        return `ln -sf '${m.target}' '${rel}'`;
      }
      case 'retarget': {
        const l = nth(t.links, m.link);
        if (!l) return undefined;
        await rm(this.abs(l));
        await symlink(m.target, this.abs(l));
        return `ln -sfn '${m.target}' '${l}' (retarget)`;
      }
      case 'gitignore': {
        const dir = m.nested ? (nth(subDirs, m.dir) ?? '') : '';
        const rel = child(dir, '.gitignore');
        if ((await lstat(this.abs(rel)).catch(() => undefined))?.isDirectory()) return undefined;
        await rm(this.abs(rel), { force: true });
        await writeFile(this.abs(rel), m.lines.join('\n') + '\n');
        return `printf '${m.lines.join('\\n')}\\n' > '${rel}'`;
      }
      case 'gitignoreDelete': {
        const g = nth(t.gitignores, m.file);
        if (!g) return undefined;
        await rm(this.abs(g));
        return `rm '${g}'`;
      }
      case 'big': {
        // HUGE at the root matches no ignore line or exclude glob: it must always be reported in `skipped`
        const rel = m.atRoot ? 'HUGE' : child(nth(t.dirs, m.dir)!, 'data.bin');
        if ((await lstat(this.abs(rel)).catch(() => undefined))?.isDirectory()) return undefined;
        await rm(this.abs(rel), { force: true });
        await writeFile(this.abs(rel), bytes(MAX_FILE + m.extra, 5));
        return `write ${MAX_FILE + m.extra} bytes > '${rel}' (over the limit)`;
      }
      case 'nestedGit': {
        const rel = child(nth(t.dirs, m.dir)!, '.git');
        await rm(this.abs(rel), { recursive: true, force: true });
        if (m.asFile) await writeFile(this.abs(rel), 'gitdir: ../elsewhere\n');
        else {
          await mkdir(this.abs(child(rel, 'objects/ab')), { recursive: true });
          await writeFile(this.abs(child(rel, 'HEAD')), 'ref: refs/heads/main\n');
          await writeFile(this.abs(child(rel, 'objects/ab/cdef')), bytes(30, 1));
        }
        return m.asFile ? `echo gitdir > '${rel}' (a .git file)` : `mkdir -p '${rel}/objects/ab' && write HEAD and an object`;
      }
      case 'touchDir': {
        const d = nth(t.dirs, m.dir)!;
        const when = m.toPast ? this.nextStamp() : new Date();
        await utimes(this.abs(d), when, when);
        return `touch -d ${m.toPast ? 'past' : 'now'} '${d || '.'}' (folder, contents unchanged)`;
      }
      case 'age': {
        // everything changed since the last age step gets one new stamp, as if written a while ago; entries aged
        // before keep theirs, so the cache can recognise them
        const when = this.nextStamp();
        const recent = Date.now() - 86_400_000;
        let n = 0;
        for (const rel of [...t.files, ...t.links, ...t.dirs]) {
          if ((await lstat(this.abs(rel))).mtimeMs > recent) {
            await lutimes(this.abs(rel), when, when);
            n++;
          }
        }
        return n ? `age ${n} recently changed entries to a new past stamp` : undefined;
      }
    }
  }
}

/** Sets a path's mtime to the nanosecond, which utimes() cannot do (as touch -r does). */
function putMtimeBack(abs: string, mtimeNs: bigint): void {
  const ns = mtimeNs % 1_000_000_000n;
  execFileSync('touch', ['-h', '-m', '-d', `@${mtimeNs / 1_000_000_000n}.${ns.toString().padStart(9, '0')}`, abs]);
}

/** The stat cache file(s) of the store, by name. */
async function statFiles(storeDir: string): Promise<Map<string, Buffer>> {
  const names = (await readdir(storeDir).catch(() => [] as string[])).filter((n) => n.startsWith('stat-')).sort();
  return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(storeDir, n))] as const)));
}

async function damage(storeDir: string, c: Corruption, earlier: Map<string, Buffer>[]): Promise<string | undefined> {
  const files = await statFiles(storeDir);
  if (c.how === 'stale') {
    const round = earlier.length ? c.round % earlier.length : -1;
    if (round < 0 || earlier[round]!.size === 0) return undefined;
    for (const n of files.keys()) await rm(join(storeDir, n));
    for (const [n, data] of earlier[round]!) await writeFile(join(storeDir, n), data);
    return `put back the stat cache file(s) saved after batch ${round}`;
  }
  for (const [name, data] of files) {
    const p = join(storeDir, name);
    if (c.how === 'empty') await writeFile(p, '');
    else if (c.how === 'truncate') await writeFile(p, data.subarray(0, Math.floor(c.at * data.length)));
    else if (c.how === 'junk') await writeFile(p, Buffer.concat([data, Buffer.from('\0garbage{]')]));
    else if (c.how === 'garble') {
      c.at.forEach((f, i) => (data[Math.floor(f * data.length)] = c.bytes[i]!));
      await writeFile(p, data);
    }
  }
  const what =
    c.how === 'garble'
      ? `overwrite byte(s) ${c.at.map((f, i) => `${f.toFixed(4)}→${c.bytes[i]}`).join(', ')} (as fractions of the length) of`
      : c.how === 'truncate'
        ? `truncate to ${c.at.toFixed(4)} of`
        : c.how;
  return files.size ? `${what} ${[...files.keys()].join(', ')}` : undefined;
}

const comparable = (s: SnapshotSummary) => ({
  root: s.root,
  files: s.files,
  totalBytes: s.totalBytes,
  ignoredCount: s.ignoredCount,
  skipped: [...s.skipped].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
});

async function scratchSnapshot(ws: string, home: string, anchor: string): Promise<SnapshotSummary> {
  const fcp = new FileCheckpointer({ workspaceRoot: ws, home, maxFileSize: MAX_FILE, exclude: EXCLUDE });
  try {
    return await fcp.snapshot('s', anchor);
  } finally {
    await fcp.dispose();
    await rm(home, { recursive: true, force: true });
  }
}

async function runCase(batches: Batch[]): Promise<void> {
  const base = await tempBase('arw-equiv-');
  const ws = join(base.dir, 'ws');
  const homeA = join(base.dir, 'home-a');
  const w = new Workspace(ws);
  await writeTree(ws, INITIAL);
  await chmod(join(ws, 'b/run.sh'), 0o755);
  await symlink('a/f1.txt', join(ws, 'ln1'));
  await w.apply({ op: 'age' });
  w.log.length = 0;
  const opts = { workspaceRoot: ws, home: homeA, maxFileSize: MAX_FILE, exclude: EXCLUDE, tuning: TUNING };
  const longLived = new FileCheckpointer(opts);
  const storeDir = longLived.storeDir;
  const repro = () => `\nreproduction (from the INITIAL tree, aged; fresh processes share one store):\n  ${w.log.join('\n  ')}`;
  let last: ReturnType<typeof comparable> | undefined;
  /** The stat cache file(s) as each round left them, for the "stale" damage. */
  const saved: Map<string, Buffer>[] = [];
  try {
    for (const [i, b] of batches.entries()) {
      if (b.sameTick) await w.apply(b.sameTick);
      for (const m of b.mutations) await w.apply(m);
      if (b.ageAfter) await w.apply({ op: 'age' });
      w.log.push(`-- snapshot a${i}`);
      const expected = comparable(await scratchSnapshot(ws, join(base.dir, `home-scratch-${i}`), `a${i}`));
      const checkLongLived = async () =>
        assert.deepEqual(comparable(await longLived.snapshot('l', `a${i}`)), expected, `long-lived instance after batch ${i}${repro()}`);
      if (b.longLived === 'before') await checkLongLived();
      // every other fresh process keeps the stat index and writes a patch beside it whenever one can say the change
      // (on a tree this small the default share would write the index again each time); every other pair moves into
      // each folder for its stat check, as a CLI command does (FileCheckpointerOptions.ownsProcessFolder)
      const fresh = new FileCheckpointer({ ...(i % 2 ? opts : { ...opts, tuning: { staleIndexShare: 0 } }), ownsProcessFolder: (i >> 1) % 2 === 0 });
      try {
        assert.deepEqual(comparable(await fresh.snapshot('s', `a${i}`)), expected, `fresh process after batch ${i}${repro()}`);
      } finally {
        await fresh.dispose();
      }
      if (b.longLived === 'after') await checkLongLived();
      saved.push(await statFiles(storeDir));
      if (b.corrupt) {
        const did = await damage(storeDir, b.corrupt, saved);
        if (did) w.log.push(did);
      }
      for (const s of expected.skipped) {
        const st = await lstat(join(ws, s.path));
        assert.ok(st.isFile() && st.size > MAX_FILE, `${s.path} is skipped only for being over the limit${repro()}`);
      }
      const huge = await lstat(join(ws, 'HUGE')).catch(() => undefined);
      if (huge?.isFile() && huge.size > MAX_FILE)
        assert.ok(
          expected.skipped.some((s) => s.path === 'HUGE'),
          `HUGE is reported as skipped${repro()}`,
        );
      last = expected;
    }
    if (last && batches.at(-1)!.longLived === 'skip')
      assert.deepEqual(comparable(await longLived.snapshot('l', 'end')), last, `long-lived instance at the end${repro()}`);
    // nested .git folders and files count for nothing: the same tree without them has the same root
    const copy = join(base.dir, 'no-git');
    await cp(ws, copy, { recursive: true, verbatimSymlinks: true, filter: (src) => !src.endsWith('/.git') });
    assert.equal(
      (await scratchSnapshot(copy, join(base.dir, 'home-copy'), 'end')).root,
      last?.root,
      `a tree without its .git entries has the same root${repro()}`,
    );
  } finally {
    await longLived.dispose();
    await base.cleanup();
  }
}

const seed = process.env.AGENT_REWIND_PROP_SEED;
// a failure's seed and path (AGENT_REWIND_PROP_PATH) replay its counterexample first
const replayPath = process.env.AGENT_REWIND_PROP_PATH;
const params = {
  numRuns: Number(process.env.AGENT_REWIND_PROPERTY_RUNS ?? 25),
  ...(seed ? { seed: Number(seed) } : {}),
  ...(seed && replayPath ? { path: replayPath } : {}),
};

test('a fresh process with the persisted stat cache snapshots exactly what a process with no cache does', { timeout: 300_000 }, () =>
  fc.assert(fc.asyncProperty(fc.array(batchWith(detectable), { minLength: 1, maxLength: 6 }), runCase), params),
);

// A folder listing the cache trusts (folder mtime unchanged) is taken name by name: without the index's checksum,
// one garbled letter of a cached name made a fresh process miss that file without a word.
test('the same with random bytes of the stat cache overwritten between rounds', { timeout: 300_000 }, () =>
  fc.assert(fc.asyncProperty(fc.array(batchWith(garbled), { minLength: 1, maxLength: 6 }), runCase), { ...params, numRuns: Math.ceil(params.numRuns / 2) }),
);

test('every single-byte change of the stat cache leaves the next snapshot exact', { timeout: 120_000 }, async () => {
  const base = await tempBase('arw-equiv-byte-');
  try {
    const ws = join(base.dir, 'ws');
    // a trusted listing with a file, a skipped file and an ignored one (links are cached like files)
    await writeTree(ws, { 'a/f1.txt': 'one\n', 'a/.gitignore': '*.log\n', 'a/x.log': 'log\n', 'a/data.bin': 'x'.repeat(MAX_FILE + 1) });
    const w = new Workspace(ws);
    await w.apply({ op: 'age' });
    // fresh processes that keep the index and write a patch beside it whenever one can say what changed
    const opts = { workspaceRoot: ws, home: join(base.dir, 'home'), maxFileSize: MAX_FILE, exclude: EXCLUDE, tuning: { staleIndexShare: 0 } };
    const first = new FileCheckpointer(opts);
    await first.snapshot('s', 'x0');
    await first.dispose();
    // a file changed in place: the second process writes a patch, so the cache is an index and a patch
    await writeFile(join(ws, 'a/f1.txt'), 'one, changed\n');
    await w.apply({ op: 'age' });
    const second = new FileCheckpointer(opts);
    await second.snapshot('s', 'x1');
    await second.dispose();
    const expected = comparable(await scratchSnapshot(ws, join(base.dir, 'home-scratch'), 'x'));
    const good = await statFiles(first.storeDir);
    assert.deepEqual([...good.keys()], ['stat-index.bin', 'stat-index.patch'], 'a snapshot leaves a stat cache and a patch');
    const wrong: string[] = [];
    for (const [name, data] of good) {
      for (let i = 0; i < data.length; i++) {
        const bad = Buffer.from(data);
        bad[i] = bad[i]! ^ 1; // the smallest change: a letter or a digit stays one, so the damage parses
        for (const [n, d] of good) await writeFile(join(first.storeDir, n), n === name ? bad : d);
        const fresh = new FileCheckpointer(opts);
        try {
          const got = comparable(await fresh.snapshot('s', 'x'));
          if (!isDeepStrictEqual(got, expected))
            wrong.push(
              `${name} byte ${i} (${JSON.stringify(data.subarray(Math.max(0, i - 12), i + 12).toString('latin1'))}): files ${got.files}, ignored ${got.ignoredCount}, skipped ${got.skipped.length}`,
            );
        } finally {
          await fresh.dispose();
        }
      }
    }
    assert.deepEqual(wrong, [], `expected ${JSON.stringify(expected)}`);
  } finally {
    await base.cleanup();
  }
});

// The same property through the checkpoint service: a long-lived process whose fs.watch watcher and cookie barrier
// feed its tracker, here a process of its own (service-child.ts). Each batch's changes are made just before the
// snapshot is asked for (nothing waits for the watcher). Between batches the service may be restarted (its saved stat
// cache damaged or not), be down while the batch's changes are made (it then starts from its saved stat cache), or be
// stopped with SIGSTOP while they are made (its watcher's events wait in the kernel until SIGCONT).
type Pause = 'none' | 'restart' | 'down' | 'sigstop';

class ServiceProcess {
  private constructor(private readonly child: ChildProcess) {}

  static async start(home: string, ws: string, checkpointer: object): Promise<ServiceProcess> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '../service/service-child.ts'), home, JSON.stringify([ws]), JSON.stringify(checkpointer)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('ready\n')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the service child exited (${code}) before it was ready: ${out}`)));
    });
    return new ServiceProcess(child);
  }

  signal(sig: 'SIGSTOP' | 'SIGCONT'): void {
    this.child.kill(sig);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGCONT');
    this.child.kill('SIGTERM');
    await exited;
  }
}

async function runServiceCase(rounds: { batch: Batch; pause: Pause }[], watchLimit?: number, folderWatch?: 'fs.watch'): Promise<void> {
  const base = await tempBase('arw-equiv-svc-');
  const ws = join(base.dir, 'ws');
  const home = join(base.dir, 'home-svc');
  const w = new Workspace(ws);
  await writeTree(ws, INITIAL);
  await chmod(join(ws, 'b/run.sh'), 0o755);
  await symlink('a/f1.txt', join(ws, 'ln1'));
  await w.apply({ op: 'age' });
  w.log.length = 0;
  const checkpointer = { maxFileSize: MAX_FILE, exclude: EXCLUDE, tuning: { ...TUNING, watchLimit, folderWatch } };
  const start = () => ServiceProcess.start(home, ws, checkpointer);
  let service = await start();
  const repro = () => `\nreproduction (from the INITIAL tree, aged; one checkpoint service, restarted, down or stopped where marked):\n  ${w.log.join('\n  ')}`;
  const saved: Map<string, Buffer>[] = [];
  const storeDir = new FileCheckpointer({ workspaceRoot: ws, home, ...checkpointer }).storeDir;
  const change = async (b: Batch) => {
    if (b.sameTick) await w.apply(b.sameTick);
    for (const m of b.mutations) await w.apply(m);
    if (b.ageAfter) await w.apply({ op: 'age' });
  };
  try {
    for (const [i, { batch: b, pause }] of rounds.entries()) {
      if (pause === 'restart' || pause === 'down') {
        await service.stop();
        saved.push(await statFiles(storeDir));
        if (pause === 'down') {
          w.log.push('-- stop the service');
          await change(b);
        }
        if (b.corrupt) {
          const did = await damage(storeDir, b.corrupt, saved);
          if (did) w.log.push(did);
        }
        w.log.push(pause === 'down' ? '-- start the service' : '-- restart the service');
        service = await start();
        if (pause === 'restart') await change(b);
      } else if (pause === 'sigstop') {
        w.log.push('-- SIGSTOP the service');
        service.signal('SIGSTOP');
        try {
          await change(b);
        } finally {
          service.signal('SIGCONT');
        }
        w.log.push('-- SIGCONT');
      } else await change(b);
      w.log.push(`-- snapshot a${i} through the service`);
      const client = new ServiceFirstCheckpoints({ workspaceRoot: ws, home, ...checkpointer }, CONNECT_UNDER_LOAD_MS);
      let got: SnapshotSummary;
      try {
        got = await client.snapshot('s', `a${i}`);
        assert.equal(client.lastAnsweredBy, 'service', `answered by the service${repro()}`);
      } finally {
        await client.dispose();
      }
      const expected = comparable(await scratchSnapshot(ws, join(base.dir, `home-scratch-${i}`), `a${i}`));
      assert.deepEqual(comparable(got), expected, `service after batch ${i}${repro()}`);
    }
  } finally {
    await service.stop();
    await base.cleanup();
  }
}

test(
  'a snapshot through the checkpoint service (warm tree, its folder watches, cookie barrier; restarted, down or SIGSTOPped between batches) equals a snapshot with no cache',
  { timeout: 600_000 },
  () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ batch: batchWith(detectable), pause: fc.constantFrom<Pause>('none', 'restart', 'down', 'sigstop') }), {
          minLength: 1,
          maxLength: 6,
        }),
        (rounds) => runServiceCase(rounds),
      ),
      { ...params, numRuns: Math.ceil(params.numRuns / 2) },
    ),
);

// The same with the system's watch limit reached (the service's watcher watches 2 folders, failing the rest with
// ENOSPC as inotify does past max_user_watches): the folders it could not watch are checked by each snapshot instead.
test(
  'the same past the watch limit (2 folders watched, the rest checked with lstat on each request) equals a snapshot with no cache',
  { timeout: 600_000 },
  () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ batch: batchWith(detectable), pause: fc.constantFrom<Pause>('none', 'restart', 'down', 'sigstop') }), {
          minLength: 1,
          maxLength: 6,
        }),
        (rounds) => runServiceCase(rounds, 2),
      ),
      { ...params, numRuns: Math.ceil(params.numRuns / 3) },
    ),
);

// The service's watcher uses Node's bare watch handle where a probe allows it (scan/folder-watch.ts), as in the tests
// above on this Node; fs.watch, where it does not, is held to the same.
test("the same with fs.watch in place of Node's bare watch handle equals a snapshot with no cache", { timeout: 600_000 }, () =>
  fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ batch: batchWith(detectable), pause: fc.constantFrom<Pause>('none', 'restart', 'down', 'sigstop') }), {
        minLength: 1,
        maxLength: 6,
      }),
      (rounds) => runServiceCase(rounds, undefined, 'fs.watch'),
    ),
    { ...params, numRuns: Math.ceil(params.numRuns / 3) },
  ),
);
