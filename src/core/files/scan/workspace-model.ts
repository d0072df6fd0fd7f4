// The workspace as last seen: a tree of folders and files with their stat data and content hashes. A full scan
// stats everything and re-hashes only what the stat data says changed; a partial refresh (fed by a watcher)
// looks only at the paths it is told about. Either way only changed folders lose their tree hash.
import { createHash } from 'node:crypto';
import { constants as fsConstants, lstatSync, readdirSync, readlinkSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import type { PackWriter } from '../store/pack-writer';
import { PathFilter, rulesKeyOf, type IgnoreLevel } from './path-filter';
import { emptyDir, nodeAt, type DirNode, type FileNode, type FileNodeState, type Node } from '../store/tree';
import type { SkippedFile } from '../types';
import { changedSinceIndex } from './stat-check';
import type { StatIndex } from './stat-index';
import { BlobThread } from '../workers/blob-thread';
import { availableParallelism } from 'node:os';
import { ReadScratch, readStableFile, unreadableReason } from '../safe-read';
import { ByteSlabs } from './byte-slabs';
import type { LstatMoment } from './lstat-moment';
import { fsPath, hasEscapedBytes, nameFromBytes, NAMES_ARE_BYTES } from '../file-names';
import { isStorableName, parentOf } from '../safe-paths';
import { DEFAULT_SCAN_TUNING, type ScanTuning } from '../types';

export interface ScanStats {
  skipped: SkippedFile[];
  hashedFiles: number;
}

/** Runs at most `n` tasks at once (file reads hold their content in memory until hashed and compressed). */
export class Limiter {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly n: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((r) => this.queue.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

const MAY_BE_GONE = { throwIfNoEntry: false } as const;
/** Reported paths a refresh stats (synchronously) between two turns of the event loop, as scanDir yields in a walk. */
const YIELD_EVERY = 2000;
/** Bytes of refreshed files kept for a preview's line counts (recentReads). */
const RECENT_READ_BUDGET = 16 * 1024 * 1024;
const { S_IFMT, S_IFDIR, S_IFREG, S_IFLNK } = fsConstants;

/**
 * Files changed this close to a scan may change again within the same timestamp tick (coarse kernel clocks: a few ms;
 * FAT: 2 s), keeping mtime and ctime: re-hash them next time, as git re-reads its racily-clean entries. Both times
 * count: a utimes() that puts the mtime back (touch -r, cp -p) leaves only the ctime recent.
 */
const RACY_MS = 2000;

/** Whether a file with these times, read during a scan that started at `scanStart`, must be re-hashed next time. */
const isRacy = (mtimeMs: number, ctimeMs: number, scanStart: number, racyMs: number) => Math.max(mtimeMs, ctimeMs) >= scanStart - racyMs;

export class WorkspaceModel {
  root: DirNode = emptyDir();
  /** Parsed .gitignore of each folder that has one. */
  readonly gitignores = new Map<string, IgnoreLevel>();
  private readonly reads = new Limiter(32);
  /**
   * The bytes of the files the last refresh of reported paths read to hash, by path, with that hash: a rewind's
   * preview counts the lines of those same files right after, and reading each again cost ~25 ms of a 1,000-file
   * preview. Content-addressed (a reader takes them only under the hash the model holds), bounded, and dropped at the
   * next refresh or by the reader. Kept as copies packed in slabs (byte-slabs.ts), the reads themselves going into a
   * scratch (scanReads).
   */
  private recentReads = new Map<string, { hash: string; data: Buffer }>();
  private recentReadBudget = 0;
  private recentSlabs = new ByteSlabs();
  /** What the current scan reads files into (safe-read.ts, ReadScratch): dropped when it ends. */
  private scratch: ReadScratch | undefined;
  private get scanReads(): ReadScratch {
    return (this.scratch ??= new ReadScratch());
  }
  /** Problems met while reading ignore rules, passed on to the next refresh's skipped list. */
  private ruleSkips: SkippedFile[] = [];

  /** Scan switches, passed in (FileCheckpointer, from settings.ts): core reads no environment variables. */
  tuning: ScanTuning = DEFAULT_SCAN_TUNING;
  /** See FileCheckpointerOptions.ownsProcessFolder: the stat check of a fresh process may move into each folder. */
  ownsProcessFolder = false;

  private get racyMs(): number {
    return this.tuning.racyMs ?? RACY_MS;
  }

  constructor(
    readonly workspaceRoot: string,
    readonly filter: PathFilter,
    readonly maxFileSize: number,
  ) {}

  private abs(rel: string): string {
    return rel === '' ? this.workspaceRoot : join(this.workspaceRoot, rel);
  }

  /** The ignore rules that apply in folder `relDir`, the root's first. */
  chainFor(relDir: string): IgnoreLevel[] {
    const chain: IgnoreLevel[] = [];
    const root = this.gitignores.get('');
    if (root) chain.push(root);
    if (relDir === '') return chain;
    let depth = 1;
    for (let i = relDir.indexOf('/'); i !== -1; i = relDir.indexOf('/', i + 1)) depth++;
    // each lookup of a prefix hashes a string as long as it: fewer folders have a .gitignore than relDir is deep
    // (a tree 2,000 folders deep), the .gitignores are matched against relDir instead, so that a scan is not cubic
    if (this.gitignores.size - (root ? 1 : 0) < depth) {
      const levels: IgnoreLevel[] = [];
      for (const [base, level] of this.gitignores)
        if (base !== '' && (relDir === base || (relDir.startsWith(base) && relDir.charCodeAt(base.length) === 47))) levels.push(level);
      levels.sort((a, b) => a.base.length - b.base.length);
      chain.push(...levels);
      return chain;
    }
    for (let i = relDir.indexOf('/'); ; i = relDir.indexOf('/', i + 1)) {
      const level = this.gitignores.get(i === -1 ? relDir : relDir.slice(0, i));
      if (level) chain.push(level);
      if (i === -1) return chain;
    }
  }

  /**
   * Where lstat looks for workspace paths: relative to the process's folder when that is the workspace (the CLI
   * moves there), which saves the kernel a lookup of every parent folder on each of 50,000 calls; else absolute.
   */
  statPrefix(): string {
    try {
      if (process.cwd() === this.workspaceRoot) return '';
    } catch {
      /* the process's folder is gone */
    }
    return this.workspaceRoot.endsWith(sep) ? this.workspaceRoot : this.workspaceRoot + sep;
  }

  /** Reads the ignore rules of folder `rel` (or forgets them when it has no .gitignore). */
  readGitignore(rel: string, present: boolean): void {
    if (present) {
      const file = join(this.abs(rel), '.gitignore');
      try {
        // never opened unless it is a regular file (through a symlink too): opening a FIFO waits for a writer forever.
        // A folder named .gitignore holds no rules (as for git) and is snapshotted like any folder: nothing to report.
        const st = statSync(file);
        if (st.isDirectory()) {
          this.gitignores.delete(rel);
          return;
        }
        if (!st.isFile()) throw new Error('not a regular file');
        const content = readStableFile(file, true).data.toString('utf8');
        this.gitignores.set(rel, { base: rel, rules: PathFilter.parseGitignore(content), key: createHash('sha1').update(content).digest('hex') });
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') {
          const reason = (err as Error).message === 'not a regular file' ? 'not a regular file' : unreadableReason(err);
          this.ruleSkips.push({ path: rel === '' ? '.gitignore' : `${rel}/.gitignore`, reason: `ignore rules not read: ${reason}` });
        }
      }
    }
    this.gitignores.delete(rel);
  }

  /**
   * Brings a tree loaded from a stat index (see stat-index.ts) up to date: one lstat per path it knows, then only
   * what changed is looked at again, as a watcher-fed refresh would.
   */
  async refreshFromIndex(index: StatIndex, stats: ScanStats, writer?: PackWriter): Promise<{ changed: number; known: number }> {
    const changed = changedSinceIndex(index, this, this.statPrefix(), this.ownsProcessFolder ? { enterFoldersOf: this.workspaceRoot } : {});
    await this.refreshPaths(changed, stats, writer);
    return { changed: changed.length, known: index.fileCount + index.dirs.length };
  }

  /** Moves the problems met reading ignore rules into a refresh's skipped list (each path once). */
  private drainRuleSkips(stats: ScanStats): void {
    for (const s of this.ruleSkips.splice(0)) if (!stats.skipped.some((k) => k.path === s.path)) stats.skipped.unshift(s);
  }

  /** Re-stats the whole workspace, reusing hashes whose stat data did not change. */
  async fullScan(stats: ScanStats, writer?: PackWriter): Promise<void> {
    const scanStart = Date.now();
    await this.withHashing(async () => {
      this.root = await this.scanDir('', this.root, stats, writer, true, scanStart);
    });
    this.drainRuleSkips(stats);
  }

  private blobThread: BlobThread | undefined;
  /** Files the current scan hashes itself before it starts a hashing thread for the rest. */
  private blobThreadAt = Infinity;

  /** Runs a scan that may start a hashing thread (decided once per scan, not per file), and stops the thread after. */
  private async withHashing<T>(scan: () => Promise<T>): Promise<T> {
    this.blobThreadAt = availableParallelism() > 1 ? this.tuning.hashThreadAfter : Infinity;
    try {
      return await scan();
    } finally {
      this.scratch = undefined;
      const t = this.blobThread;
      this.blobThread = undefined;
      this.blobThreadAt = Infinity;
      await t?.close();
    }
  }

  /** The hashing thread, started once the scan has hashed enough files to be a big one (a first snapshot, typically). */
  private blobThreadFor(stats: ScanStats): BlobThread | undefined {
    if (!this.blobThread && stats.hashedFiles >= this.blobThreadAt) this.blobThread = new BlobThread();
    return this.blobThread;
  }

  /**
   * Looks again at the given paths only (a watcher said they changed). A changed folder is re-listed; folders
   * that are new are scanned whole.
   */
  async refreshPaths(paths: Iterable<string>, stats: ScanStats, writer?: PackWriter, unwatched: Iterable<string> = []): Promise<void> {
    try {
      await this.withHashing(() => this.refreshPathsNow(paths, stats, writer, unwatched));
    } finally {
      this.recentReadBudget = 0; // only this refresh's reads are kept: a later full scan keeps nothing
    }
    this.drainRuleSkips(stats);
  }

  /** The bytes a refresh read of `rel` when they hash to `hash` (see recentReads), else undefined. */
  recentRead(rel: string, hash: string): Buffer | undefined {
    const r = this.recentReads.get(rel);
    return r?.hash === hash ? r.data : undefined;
  }

  dropRecentReads(): void {
    this.recentReads = new Map();
    this.recentSlabs = new ByteSlabs();
    this.recentReadBudget = 0;
  }

  /**
   * `unwatched`: folders no watcher reports on (the system's watch limit, fs-watcher.ts): each is checked whole, as a
   * full scan checks the tree (an lstat per entry below it, files re-read only when their stat data changed).
   */
  private async refreshPathsNow(paths: Iterable<string>, stats: ScanStats, writer: PackWriter | undefined, unwatched: Iterable<string>): Promise<void> {
    const scanStart = Date.now();
    this.dropRecentReads();
    this.recentReadBudget = RECENT_READ_BUDGET;
    // group the reports: a folder re-listed once covers every report about its direct children
    const relist = new Map<string, boolean>(); // folder → deep (its .gitignore changed, or nothing watches it)
    for (const rel of unwatched) if (this.get(rel)?.kind === 'dir') relist.set(rel, true);
    const singles: string[] = [];
    for (const rel of new Set(paths)) {
      if (rel === '') {
        relist.set('', relist.get('') ?? false);
        continue;
      }
      const parts = rel.split('/');
      if (parts.some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git')) continue;
      let dir = this.root;
      let i = 0;
      for (; i < parts.length - 1; i++) {
        const next = dir.children.get(parts[i]!);
        if (!next || next.kind !== 'dir') break;
        dir = next;
      }
      const parentRel = parts.slice(0, i).join('/');
      const name = parts[i]!;
      if (i < parts.length - 1)
        relist.set(parentRel, relist.get(parentRel) ?? false); // a folder we did not know
      else if (name === '.gitignore')
        relist.set(parentRel, true); // rules changed: look at everything below again
      else singles.push(rel);
    }
    for (const [dirRel, deep] of [...relist].sort((a, b) => a[0].length - b[0].length)) {
      const dir = this.get(dirRel);
      if (!dir || dir.kind !== 'dir') continue; // removed with a parent re-listed before it
      this.setNode(dirRel, await this.scanDir(dirRel, dir, stats, writer, deep, scanStart));
      this.invalidate(dirRel);
    }
    // hashes are forgotten once every single is in place: a folder re-listed above a changed file must not keep a
    // hash computed while the file's refresh was still running
    const touched = new Set<string>();
    /** Folders where a name appeared or went away: how many entries their ignore rules leave out may have changed. */
    const recount = new Set<string>();
    const refreshOne = async (rel: string) => {
      const parentRel = parentOf(rel);
      const dir = this.get(parentRel);
      if (!dir || dir.kind !== 'dir') return;
      const name = rel.slice(parentRel === '' ? 0 : parentRel.length + 1);
      // a re-listed folder looked at its files again, but kept its sub-folders as they were
      if (relist.has(parentRel) && dir.children.get(name)?.kind !== 'dir') return;
      const chain = this.chainFor(parentRel);
      let st: Stats | undefined;
      try {
        // synchronous: microseconds from the inode cache, where a promise per path waits for a thread-pool thread and
        // then for the event loop, which on a loaded machine was the larger part of a prompt's refresh of 10 paths
        st = lstatSync(fsPath(this.abs(rel)));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') stats.skipped.push({ path: rel, reason: statFailure(code) }); // else gone
      }
      const prev = dir.children.get(name);
      let node: Node | undefined;
      if (st?.isDirectory() && prev?.kind === 'dir' && !this.filter.isExcluded(rel, true, chain)) {
        node = await this.scanDir(rel, prev, stats, writer, false, scanStart); // its listing changed
      } else if (st) {
        // a file the model holds as a file, under the rules it was taken in with (changed rules re-list its folder
        // first): still included, as a trusted listing takes it in scanDir; matching it again would only cost a
        // fresh process the compilation of every rule
        const known = prev !== undefined && prev.kind !== 'dir' && !st.isDirectory();
        node = await this.scanEntry(rel, st, prev, chain, stats, writer, false, scanStart, known);
      }
      if (node) dir.children.set(name, node);
      else dir.children.delete(name);
      if (!prev || !node) recount.add(parentRel);
      touched.add(parentRel);
    };
    // shallow paths first: a folder's new node must be in place before anything inside it is put into it
    const byDepth = new Map<number, string[]>();
    for (const rel of singles) {
      const depth = rel.split('/').length;
      const same = byDepth.get(depth);
      if (same) same.push(rel);
      else byDepth.set(depth, [rel]);
    }
    for (const depth of [...byDepth.keys()].sort((a, b) => a - b)) {
      const refreshing: Promise<void>[] = [];
      for (const rel of byDepth.get(depth)!) {
        // each refreshOne stats its path synchronously before its first await: let the event loop in now and then on
        // a long list (a fresh process's thousands of changed paths), as scanDir does in a walk
        if (refreshing.length > 0 && refreshing.length % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
        refreshing.push(refreshOne(rel));
      }
      await Promise.all(refreshing);
    }
    // an ignored name is not in the model: count those folders' ignored names again (a listing, no file read)
    for (const dirRel of recount) if (!relist.has(dirRel)) await this.recountIgnored(dirRel);
    for (const rel of touched) this.invalidate(rel);
  }

  /** Sets a folder's count of entries its ignore rules leave out, as scanDir counts them, from a fresh listing. */
  private async recountIgnored(rel: string): Promise<void> {
    const dir = this.get(rel);
    if (!dir || dir.kind !== 'dir') return;
    let dirents: Listed[];
    try {
      dirents = listFolder(this.abs(rel));
    } catch {
      return; // gone or unreadable: its parent's refresh deals with it
    }
    const chain = this.chainFor(rel);
    let ignored = 0;
    for (const d of dirents) {
      if (d.name.length === 4 && d.name.toLowerCase() === '.git') continue;
      const isDir = d.isDirectory();
      const known = dir.children.get(d.name);
      if (known && (known.kind === 'dir') === isDir) continue; // in the model: included
      if (this.filter.isExcluded(rel === '' ? d.name : `${rel}/${d.name}`, isDir, chain)) ignored++;
    }
    dir.ignoredHere = ignored;
  }

  /** Puts `node` where the folder `rel` is (the root for ''). */
  private setNode(rel: string, node: DirNode): void {
    if (rel === '') {
      this.root = node;
      return;
    }
    const slash = rel.lastIndexOf('/');
    const parent = this.get(slash < 0 ? '' : rel.slice(0, slash));
    if (parent?.kind === 'dir') parent.children.set(rel.slice(slash + 1), node);
  }

  /** Forgets the tree hashes (and the totals kept with them) of `relDir` and every folder above it. */
  invalidate(relDir: string): void {
    this.root.hash = undefined;
    this.root.cachedTotals = undefined;
    if (relDir === '') return;
    let dir: DirNode = this.root;
    for (const p of relDir.split('/')) {
      const next = dir.children.get(p);
      if (!next || next.kind !== 'dir') return;
      next.hash = undefined;
      next.cachedTotals = undefined;
      dir = next;
    }
  }

  /**
   * Lists a folder and stats its entries synchronously (a promise per lstat costs more than the lstat on a big
   * tree), yielding to the event loop now and then; files whose stat data changed are hashed asynchronously, and
   * those reads are waited for by the caller of the outermost scan.
   */
  private async scanDir(
    rel: string,
    old: DirNode | undefined,
    stats: ScanStats,
    writer: PackWriter | undefined,
    deep: boolean,
    scanStart: number,
    work?: Promise<void>[],
  ): Promise<DirNode> {
    const outer = work === undefined;
    const pending = work ?? [];
    const result = await this.scanDirSync(rel, old, stats, writer, deep, scanStart, pending);
    if (outer) await Promise.all(pending);
    return result;
  }

  private sinceYield = 0;

  private async scanDirSync(
    rel: string,
    old: DirNode | undefined,
    stats: ScanStats,
    writer: PackWriter | undefined,
    deep: boolean,
    scanStart: number,
    work: Promise<void>[],
  ): Promise<DirNode> {
    let mode = old?.mode ?? 0o755;
    const absDir = this.abs(rel);
    let dst: Stats;
    try {
      dst = lstatSync(fsPath(absDir));
      mode = dst.mode & 0o7777;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') stats.skipped.push({ path: rel || '.', reason: `folder unreadable (${code ?? 'error'})` });
      return { kind: 'dir', mode, children: new Map() };
    }
    // a folder's mtime changes whenever an entry is added, removed or renamed: if it did not, the names we listed
    // last time are still the names (git's untracked cache relies on the same), so only the entries need an lstat
    const listTime = Date.now();
    let names: string[] | undefined;
    if (
      old?.listedMtimeMs !== undefined &&
      old.listedMtimeMs === dst.mtimeMs &&
      old.listedCtimeMs === dst.ctimeMs &&
      old.dirIno === dst.ino &&
      old.dirDev === dst.dev &&
      old.listed
    )
      names = old.listed;
    const readListing = (): Listed[] | undefined => {
      try {
        return listFolder(absDir);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') stats.skipped.push({ path: rel || '.', reason: `folder unreadable (${code ?? 'error'})` });
        return undefined;
      }
    };
    let dirents: Listed[] | undefined = names ? undefined : readListing();
    if (!names && !dirents) return { kind: 'dir', mode, children: new Map() };
    /** Names of this listing that cannot be stored or restored here: reported, and the listing not reused. */
    let refused: Set<string> | undefined;
    const checkNames = () => {
      refused = dirents ? this.refusedNames(rel, dirents, stats) : undefined;
    };
    checkNames();
    const hasGitignore = () =>
      dirents
        ? dirents.some((d) => d.name === '.gitignore' && !d.isDirectory())
        : names!.includes('.gitignore') && old?.children.get('.gitignore')?.kind !== 'dir';
    const loadRules = () => this.readGitignore(rel, hasGitignore());
    loadRules();
    let chain = this.chainFor(rel);
    // an entry that was in this folder under the same rules is still included: no need to match it again
    let rulesKey = rulesKeyOf(chain);
    if (names && old?.rulesKey !== rulesKey) {
      // other rules may take in entries we never listed: list for real
      names = undefined;
      dirents = readListing();
      if (!dirents) return { kind: 'dir', mode, children: new Map() };
      checkNames();
      loadRules();
      chain = this.chainFor(rel);
      rulesKey = rulesKeyOf(chain);
    }
    const trusted = old?.rulesKey === rulesKey ? old.children : undefined;
    let ignoredHere = 0;
    /** Names looked at (not ignored), skipped files included, so a reused listing still reports and retries them. */
    const listed: string[] = [];
    if (names) ignoredHere = old?.ignoredHere ?? 0;
    const children = new Map<string, Node>();
    let changed = false;
    const count = names ? names.length : dirents!.length;
    const prefix = this.statPrefix() + (rel === '' ? '' : rel + '/');
    for (let i = 0; i < count; i++) {
      const name = names ? names[i]! : dirents![i]!.name;
      if (name.length === 4 && name.toLowerCase() === '.git') continue; // nested repositories: their files yes, their .git never
      if (refused?.has(name)) continue;
      const prev = old?.children.get(name);
      const isDir = names ? prev?.kind === 'dir' : dirents![i]!.isDirectory();
      if (!(trusted && prev && (prev.kind === 'dir') === isDir) && this.filter.isExcluded(rel === '' ? name : `${rel}/${name}`, isDir, chain)) {
        ignoredHere++;
        continue;
      }
      // with a hashing thread, often: its answers wait for a turn of the event loop
      if (++this.sinceYield >= (this.blobThread ? 8 : 2000)) {
        this.sinceYield = 0;
        await new Promise((r) => setImmediate(r)); // keep the host responsive during a long walk
      }
      listed.push(name);
      let st: Stats | undefined;
      try {
        // a name that is not valid UTF-8 (here or above) reaches the system as its bytes (no local for it: this frame
        // is on the stack once per level of a 2,000-deep tree, and such a test has little room to spare)
        st = lstatSync(fsPath(prefix + name), MAY_BE_GONE);
      } catch (err) {
        // e.g. a path longer than the system allows (ENAMETOOLONG): that path is reported, the snapshot goes on
        stats.skipped.push({ path: rel === '' ? name : `${rel}/${name}`, reason: statFailure((err as NodeJS.ErrnoException).code) });
        changed = true;
        continue;
      }
      if (!st) {
        changed = true;
        continue; // vanished while we looked
      }
      // the common case first and without allocations: a file whose stat data is what we saw last time
      const fmt = st.mode & S_IFMT;
      if (fmt !== S_IFDIR && prev !== undefined && prev.kind !== 'dir') {
        const p = prev as FileNodeState;
        if (
          p.kind === (fmt === S_IFREG ? 'file' : fmt === S_IFLNK ? 'symlink' : undefined) &&
          (!p.racy || (p.hashedAt ?? 0) >= scanStart) &&
          p.mtimeMs === st.mtimeMs &&
          p.ctimeMs === st.ctimeMs &&
          p.size === st.size &&
          p.ino === st.ino &&
          p.dev === st.dev &&
          p.mode === (st.mode & 0o7777)
        ) {
          children.set(name, p);
          continue;
        }
      }
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (fmt === S_IFDIR && (isDir || !this.filter.isExcluded(childRel, true, chain))) {
        if (prev?.kind === 'dir' && !deep) children.set(name, prev);
        else children.set(name, await this.scanDirSync(childRel, prev?.kind === 'dir' ? prev : undefined, stats, writer, deep, scanStart, work));
        continue;
      }
      changed = true;
      work.push(
        this.scanEntry(childRel, st, prev, chain, stats, writer, deep, scanStart, true).then((node) => {
          if (node) children.set(name, node);
        }),
      );
    }
    const result: DirNode = { kind: 'dir', mode, children, rulesKey, ignoredHere, dirIno: dst.ino, dirDev: dst.dev, listed };
    // a listing is only trusted next time when the folder had not changed within the timestamp tick we listed it in,
    // nor one with a name that is not valid UTF-8: the stat index keeps file names as text, and its fast check would
    // look for that file under another name
    if (!isRacy(dst.mtimeMs, dst.ctimeMs, listTime, this.racyMs) && !refused?.size && !holdsEscapedNames(rel, dirents)) {
      result.listedMtimeMs = dst.mtimeMs;
      result.listedCtimeMs = dst.ctimeMs;
    }
    if (!changed && old?.hash !== undefined && old.mode === mode && sameChildren(old, result)) result.hash = old.hash;
    return result;
  }

  private async scanEntry(
    rel: string,
    st: Stats,
    prev: Node | undefined,
    chain: IgnoreLevel[],
    stats: ScanStats,
    writer: PackWriter | undefined,
    deep: boolean,
    scanStart: number,
    filtered = false,
  ): Promise<Node | undefined> {
    if (!filtered && this.filter.isExcluded(rel, st.isDirectory(), chain)) return undefined;
    if (st.isDirectory()) {
      if (prev?.kind === 'dir' && !deep) return prev;
      return this.scanDir(rel, prev?.kind === 'dir' ? prev : undefined, stats, writer, deep, scanStart);
    }
    const mode = st.mode & 0o7777;
    if (st.isFile() || st.isSymbolicLink()) {
      const kind = st.isFile() ? 'file' : 'symlink';
      if (kind === 'file' && st.size > this.maxFileSize) {
        stats.skipped.push({ path: rel, reason: `larger than the ${formatBytes(this.maxFileSize)} limit (${formatBytes(st.size)})` });
        return undefined;
      }
      const p = prev as FileNodeState | undefined;
      if (
        p &&
        p.kind === kind &&
        (!p.racy || (p.hashedAt ?? 0) >= scanStart) &&
        p.mtimeMs === st.mtimeMs &&
        p.ctimeMs === st.ctimeMs &&
        p.size === st.size &&
        p.ino === st.ino &&
        p.dev === st.dev &&
        p.mode === mode
      )
        return p;
      try {
        type Version = Pick<FileNodeState, 'hash' | 'size' | 'mtimeMs' | 'ctimeMs' | 'ino' | 'dev'>;
        const data = await this.reads.run(async (): Promise<Version> => {
          const helper = kind === 'file' && writer && st.size <= 8 * 1024 * 1024 && !hasEscapedBytes(rel) ? this.blobThreadFor(stats) : undefined;
          if (helper?.hasRoom) {
            const blob = await helper.prepare(this.abs(rel), writer!.compressBulk);
            stats.hashedFiles++;
            await writer!.addPrepared(blob.hash, blob.stored, blob.size, blob.deflated);
            const read = blob.st ?? st;
            return { hash: blob.hash, size: blob.size, mtimeMs: read.mtimeMs, ctimeMs: read.ctimeMs, ino: read.ino, dev: read.dev };
          }
          // synchronous reads: a page-cache read is cheaper than the four thread-pool round trips of readFile();
          // never a FIFO or device (it could block forever), never a torn copy of a file changing under the read
          let content: Buffer;
          let fst: Pick<Stats, 'mtimeMs' | 'ctimeMs' | 'ino' | 'dev'> = st;
          // hashed from the scan's scratch and copied only where kept (a stored blob is not: most re-read files)
          const scratch = this.scanReads;
          if (kind === 'file') ({ data: content, st: fst } = readStableFile(this.abs(rel), false, scratch));
          else content = readlinkSync(fsPath(this.abs(rel)), { encoding: 'buffer' }); // a target's bytes, as they are
          const hash = createHash('sha256').update(content).digest('hex');
          stats.hashedFiles++;
          const lent = scratch.lent(content);
          if (kind === 'file' && content.length <= this.recentReadBudget) {
            this.recentReadBudget -= content.length;
            this.recentReads.set(rel, { hash, data: lent ? this.recentSlabs.copy(content) : content });
          }
          if (writer) await writer.add('blob', hash, content, lent);
          return { hash, size: content.length, mtimeMs: fst.mtimeMs, ctimeMs: fst.ctimeMs, ino: fst.ino, dev: fst.dev };
        });
        const node: FileNodeState = { kind, mode, ...data };
        if (isRacy(data.mtimeMs, data.ctimeMs, scanStart, this.racyMs)) {
          node.racy = true;
          node.hashedAt = Date.now();
        }
        return node;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return undefined;
        stats.skipped.push({ path: rel, reason: unreadableReason(err) });
        return undefined;
      }
    }
    stats.skipped.push({ path: rel, reason: 'not a regular file, folder or symlink' });
    return undefined;
  }

  /**
   * The names of a fresh listing that a restore could not create on this platform, each reported once. A name that is
   * not valid UTF-8 is stored as its bytes (file-names.ts), so it is no longer among them.
   */
  private refusedNames(rel: string, dirents: Listed[], stats: ScanStats): Set<string> | undefined {
    let refused: Set<string> | undefined;
    for (const d of dirents) {
      const name = d.name;
      if (!isStorableName(name) && !(name.length === 4 && name.toLowerCase() === '.git')) {
        (refused ??= new Set()).add(name);
        stats.skipped.push({ path: rel === '' ? name : `${rel}/${name}`, reason: 'name cannot be restored on this platform' });
      }
    }
    return refused;
  }

  /**
   * Of `rels`, those whose entry on disk is not the one the model holds, by stat data alone (another kind, size, times,
   * inode, device or mode; gone; there where the model has nothing): what a watcher's missed report leaves wrong. A
   * folder on the way that is not that folder now is given instead of what is below it, which is never looked at
   * through it (a symlink may lead out of the workspace). Reads no file: a racy file that kept its stat data is as the
   * model holds it, as for any snapshot of a tracked model. `onDisk`: lstats taken at this same moment by the check
   * just before (lstat-moment.ts).
   */
  differingOnDisk(rels: Iterable<string>, fresh?: { has(rel: string): boolean }, onDisk?: LstatMoment): string[] {
    const differs = new Map<string, boolean>();
    const out = new Set<string>();
    for (const rel of rels) {
      for (let end = rel.indexOf('/'); ; end = rel.indexOf('/', end + 1)) {
        const at = end < 0 ? rel : rel.slice(0, end);
        let d = differs.get(at);
        if (d === undefined) differs.set(at, (d = !fresh?.has(at) && this.differsOnDisk(at, onDisk)));
        if (d) {
          out.add(at);
          break;
        }
        // the same as the model holds, and not a folder (or nothing): there is nothing below it on disk either
        if (end < 0 || this.get(at)?.kind !== 'dir') break;
      }
    }
    return [...out];
  }

  private differsOnDisk(rel: string, onDisk?: LstatMoment): boolean {
    const node = this.get(rel);
    let st: Stats | undefined;
    try {
      st = onDisk ? onDisk.lstat(rel) : lstatSync(fsPath(this.abs(rel)), MAY_BE_GONE);
    } catch {
      return true; // a refresh of the path tells what it is (and reports why it cannot be read)
    }
    if (!st || !node) return (st === undefined) !== (node === undefined);
    const mode = st.mode & 0o7777;
    if (node.kind === 'dir') return !st.isDirectory() || mode !== node.mode;
    return (
      node.kind !== (st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : undefined) ||
      node.size !== st.size ||
      node.mtimeMs !== st.mtimeMs ||
      node.ctimeMs !== st.ctimeMs ||
      node.ino !== st.ino ||
      node.dev !== st.dev ||
      node.mode !== mode
    );
  }

  /** Looks up a node by workspace-relative path. */
  get(rel: string): Node | undefined {
    return nodeAt(this.root, rel);
  }
}

/** A folder entry as a listing gives it. */
type Listed = Pick<Dirent, 'name' | 'isDirectory'>;

/**
 * The entries of a folder, each name as the system has it (file-names.ts): a listing read as text shows a name that
 * is not valid UTF-8 with U+FFFD in it, and only then is the folder listed again as bytes.
 */
function listFolder(abs: string): Listed[] {
  const dirents = readdirSync(fsPath(abs), { withFileTypes: true });
  if (!NAMES_ARE_BYTES || !dirents.some((d) => d.name.includes('\uFFFD'))) return dirents;
  const raw = readdirSync(fsPath(abs), { withFileTypes: true, encoding: 'buffer' }).map((d) => ({
    name: nameFromBytes(d.name),
    isDirectory: () => d.isDirectory(),
  }));
  listedAsBytes.add(raw);
  return raw;
}

/** The folder `rel`, listed as `dirents`, has a name that is not valid UTF-8 in its path or among its entries. */
function holdsEscapedNames(rel: string, dirents: Listed[] | undefined): boolean {
  return hasEscapedBytes(rel) || (dirents !== undefined && listedAsBytes.has(dirents) && dirents.some((d) => hasEscapedBytes(d.name)));
}

/** Listings listFolder read as bytes: only these can hold a name that is not valid UTF-8 (so only these are looked
 *  through for one). */
const listedAsBytes = new WeakSet<Listed[]>();

function sameChildren(a: DirNode, b: DirNode): boolean {
  if (a.children.size !== b.children.size) return false;
  for (const [name, n] of b.children) {
    const o = a.children.get(name);
    if (!o || o.kind !== n.kind || o.mode !== n.mode) return false;
    if (n.kind === 'dir') {
      if (n.hash === undefined || n.hash !== (o as DirNode).hash) return false;
    } else if (n.hash !== (o as FileNode).hash) return false;
  }
  return true;
}

/** The reason a path whose lstat failed (other than it being gone) is reported with. */
function statFailure(code: string | undefined): string {
  return code === 'ENAMETOOLONG' ? 'path longer than the system allows (ENAMETOOLONG)' : `unreadable (${code ?? 'error'})`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(1)} GiB`;
}
