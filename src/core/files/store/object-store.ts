// Content-addressed object store: blobs (file contents, symlink targets) and trees (folders), deflated and appended
// to pack files, one pack per snapshot, so a snapshot costs one file write plus what changed (pack-writer.ts). A pack
// only counts once its index exists (written after the pack, both temp + rename), so a crash leaves garbage for gc,
// never a bad object. Packs are self-describing (pack-format.ts): each object's hash and lengths precede its bytes, so
// a lost or damaged index is rebuilt from its pack (like git's index-pack). A pack that cannot be trusted is salvaged
// (pack-salvage.ts: every object that still verifies is copied into a new pack) and moved aside into
// <store>/quarantine/ with a report, instead of failing the whole store.
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { F_DEFLATED, F_DICT, F_TREE, hashObject, inflateStored, kindOf, StoreCorruptError, verifyStored, type ObjectKind } from './object-format';
import { gcPacks, mergeSmallPacks, MAX_SMALL_PACKS } from './pack-compaction';
import { encodeIndex, entryHash, indexCount } from './pack-index';
import { PackReaders } from './pack-readers';
import { salvagedIndex, salvagePack } from './pack-salvage';
import { fitsIn, isCompacted, PackTable, type Loc } from './pack-table';
import { PackWriter, type PackKind } from './pack-writer';

export { hashObject, isObjectHash, MAX_OBJECT_SIZE, StoreCorruptError, type ObjectKind } from './object-format';
export { MAX_SMALL_PACKS } from './pack-compaction';
export type { PackWriter } from './pack-writer';

const inflateAsync = promisify(inflateRaw);
function inflateStoredAsync(loc: Loc, raw: Buffer, dict: Buffer | undefined): Promise<Buffer> {
  if (!(loc.flags & F_DEFLATED)) return Promise.resolve(raw);
  if (loc.flags & F_DICT && !dict) return Promise.reject(new Error('the dictionary of its pack is missing'));
  const opts = { maxOutputLength: Math.max(loc.rawSize, 1) };
  return inflateAsync(raw, loc.flags & F_DICT ? { ...opts, dictionary: dict } : opts);
}
const PACK_NAME = /^[0-9a-z]+-[0-9a-f]+(?:-c)?\.pack$/;
/** A pack still under the temp name its writer gave it (pack-writer.ts); never a compaction's (BACKGROUND_TEMP). */
const TEMP_PACK = /^tmp-([0-9a-z]+-[0-9a-f]+)\.pack$/;
const READ_DAMAGED = 'a read found objects that do not match their hash';
const damagedObject = (hash: string) => `object ${hash.slice(0, 12)} is damaged (no stored copy of it is intact)`;

async function writeDurable(file: string, data: Buffer): Promise<void> {
  const h = await open(file, 'w');
  try {
    await h.writeFile(data);
    await h.sync();
  } finally {
    await h.close();
  }
}

export class ObjectStore {
  /** @internal Where each object is (pack-compaction.ts). */
  readonly table = new PackTable();
  /** @internal Open pack files (pack-compaction.ts). */
  readonly readers: PackReaders;

  private constructor(
    readonly dir: string,
    /** Big packs' indexes stay in memory instead of on disk (see open). */
    private readonly indexesInMemory: boolean,
  ) {
    this.readers = new PackReaders(this.packDir);
  }

  /** Where the table may leave a big pack's index (PackTable.add), or undefined: kept in memory. */
  private indexFileToHold(pack: string): string | undefined {
    return this.indexesInMemory ? undefined : join(this.packDir, pack + '.idx');
  }

  get packDir(): string {
    return join(this.dir, 'packs');
  }

  /**
   * `indexesInMemory`: for a process that ends after one operation. A big pack's index is read whole when the store
   * opens; a long-lived process keeps only its hash heads and reads an entry from the file for each hit
   * (DiskPackIndex), for memory. A fresh snapshot looks up every unchanged file of the folders it rewrites (~1,000
   * hits in the files bench), so one that keeps the index it already read spends no read on each (~7 ms CPU less).
   */
  static async open(dir: string, opts: { indexesInMemory?: boolean } = {}): Promise<ObjectStore> {
    const store = new ObjectStore(dir, opts.indexesInMemory === true);
    mkdirSync(store.packDir, { recursive: true });
    await store.reload();
    return store;
  }

  get quarantineDir(): string {
    return join(this.dir, 'quarantine');
  }

  /**
   * Picks up packs other processes added and forgets packs gc removed (only new indexes are read). A pack whose index
   * is missing, damaged or points past the end of the pack is read through an index rebuilt in memory from the pack
   * (its objects that verify, as a repair would keep them); with `repair` (only under the store lock: no other writer
   * is between its pack and index renames) it is mended on disk instead: its index rebuilt from the pack, or its good
   * objects salvaged and the pack quarantined, as is a pack a read found damaged. Never throws for a damaged pack.
   * Without `repair` nothing is written, and what can be read is what a repair would leave readable: a dry run sees
   * the store as the real run, which repairs first, will.
   */
  async reload(opts: { repair?: boolean } = {}): Promise<void> {
    const names = new Set(readdirSync(this.packDir));
    if (opts.repair) await this.adoptOrphans(names);
    for (const pack of this.table.names()) {
      const provisional = this.provisional.has(pack);
      if (!names.has(pack + '.pack') || (!provisional && !names.has(pack + '.idx')) || (opts.repair && (provisional || names.has(pack + '.damaged'))))
        await this.forget(pack);
    }
    // the new indexes, read on this thread: one snapshot makes one pack, and a fresh process (the CLI) reads them all;
    // from the page cache that is ~3 ms for 30 packs, through the thread pool (a stat and four round trips each) ~10
    const fresh = [...names].filter((name) => PACK_NAME.test(name) && !this.table.has(name.slice(0, -5)));
    const load = (name: string) => {
      const pack = name.slice(0, -5);
      try {
        const { size } = statSync(join(this.packDir, name));
        let buf: Buffer | undefined;
        try {
          buf = names.has(pack + '.idx') ? readFileSync(join(this.packDir, pack + '.idx')) : undefined;
        } catch {
          buf = undefined;
        }
        return { pack, size, buf };
      } catch {
        return undefined; // removed meanwhile
      }
    };
    const loaded = fresh.map(load);
    for (const l of loaded) {
      if (!l || this.table.has(l.pack)) continue;
      const { pack, size, buf } = l;
      // a pack a read found damaged still serves its intact objects (every read is verified) until a writer mends it
      const damaged = opts.repair === true && names.has(pack + '.damaged');
      const count = buf && indexCount(buf);
      const problem = damaged
        ? READ_DAMAGED
        : !buf
          ? 'its index is missing'
          : count === undefined
            ? 'its index is damaged'
            : !fitsIn(buf, count, size)
              ? 'it is shorter than its index says (truncated)'
              : undefined;
      if (!problem) {
        this.table.add(pack, { idx: buf!, count: count!, size }, this.indexFileToHold(pack));
        continue;
      }
      if (opts.repair) await this.repairPack(pack, buf, problem);
      else this.readProvisionally(pack, buf, size);
    }
  }

  /**
   * Reads a pack whose index cannot be trusted through one rebuilt in memory from the pack itself (salvagedIndex),
   * until a writer under the lock mends it on disk (reload with `repair` forgets it first, so that it is mended).
   */
  private readProvisionally(pack: string, buf: Buffer | undefined, size: number): void {
    const s = salvagedIndex(join(this.packDir, pack + '.pack'), buf);
    if (!s) return; // removed meanwhile
    for (const h of s.lost) this.lost.add(h);
    if (s.entries.length === 0) return;
    const idx = encodeIndex(s.entries);
    this.table.add(pack, { idx, count: s.entries.length, size });
    this.provisional.add(pack);
  }

  /** Packs read through an index rebuilt in memory (readProvisionally). */
  private readonly provisional = new Set<string>();
  /** Hashes a pack or its index lists whose stored bytes do not verify (found by a salvage): reported as damaged,
   *  not missing, when no other copy is left, so the reason is the same before and after a repair. */
  private readonly lost = new Set<string>();
  /** Per pack, where its objects that verify are, found by walking the pack (salvagedIndex): where a read looks when
   *  the copy the pack's index names does not verify, as a repair would find it. */
  private readonly salvaged = new Map<string, Map<string, Loc>>();

  private salvagedLoc(pack: string, hash: string): Loc | undefined {
    let found = this.salvaged.get(pack);
    if (!found) {
      found = new Map();
      const s = salvagedIndex(join(this.packDir, pack + '.pack'), this.table.indexOf(pack));
      for (const e of s?.entries ?? []) found.set(e.hash, { pack, offset: e.offset, length: e.length, rawSize: e.rawSize, flags: e.flags });
      for (const h of s?.lost ?? []) this.lost.add(h);
      this.salvaged.set(pack, found);
    }
    return found.get(hash);
  }

  /**
   * Packs left under their temp names by writers that are gone (called under the store lock only, so no writer is
   * alive). A snapshot renames its record in while its pack's folder is still being fsynced (one fsync round instead
   * of two), so a power cut may keep the record's rename and lose the pack's: a temp pack whose every object verifies
   * is put in place (its index is then rebuilt from it), anything else is an unfinished write and goes.
   */
  private async adoptOrphans(names: Set<string>): Promise<void> {
    for (const name of [...names]) {
      const pack = TEMP_PACK.exec(name)?.[1];
      if (!pack) continue;
      const file = join(this.packDir, name);
      const s = names.has(pack + '.pack') ? undefined : salvagePack(file, undefined);
      names.delete(name);
      if (s?.complete && s.selfDescribing && s.good.length > 0) {
        await rename(file, join(this.packDir, pack + '.pack'));
        names.add(pack + '.pack');
      } else await unlink(file).catch(() => {});
    }
  }

  /**
   * Mends a pack: when it is self-describing and every object in it verifies, its index is rebuilt from it; otherwise
   * the objects that still verify are copied into a new pack and the pack (with its index) moves to quarantine/,
   * next to a report of what was lost.
   */
  private async repairPack(pack: string, idxBuf: Buffer | undefined, problem: string): Promise<void> {
    const file = join(this.packDir, pack + '.pack');
    const salvaged = salvagePack(file, idxBuf);
    if (!salvaged) return; // removed meanwhile
    const { good, lost, complete, selfDescribing, dictionary } = salvaged;
    for (const h of lost) this.lost.add(h);
    if (selfDescribing && complete && problem !== READ_DAMAGED) {
      // the pack is whole: only its index was lost or damaged
      const idx = encodeIndex(good.map((g) => g.entry));
      await writeDurable(join(this.packDir, `tmp-${pack}.idx`), idx);
      await rename(join(this.packDir, `tmp-${pack}.idx`), join(this.packDir, pack + '.idx'));
      await unlink(join(this.packDir, pack + '.damaged')).catch(() => {});
      this.table.add(pack, { idx, count: good.length, size: (await stat(file)).size }, this.indexFileToHold(pack));
      return;
    }
    if (good.length > 0) {
      // a compacted pack's objects need its dictionary: they go into a compacted pack written with the same one
      const w = this.newPack(isCompacted(pack) ? { kind: { compacted: true, dictionary } } : {});
      for (const g of good) await w.addStored(g.entry.hash, g.stored, g.entry);
      await w.commit(true);
    }
    await mkdir(this.quarantineDir, { recursive: true });
    const report = {
      pack,
      problem,
      quarantinedAt: new Date().toISOString(),
      salvagedObjects: good.length,
      lostObjects: lost,
      note:
        lost.length > 0 || !complete
          ? 'Snapshots that need a lost object are refused when restored; the workspace files they described are not touched.'
          : 'Every object was salvaged.',
    };
    await writeFile(join(this.quarantineDir, pack + '.json'), JSON.stringify(report, null, 2) + '\n');
    // index first: a pack without an index would be rebuilt again, an index without a pack reaches nothing
    for (const ext of ['.idx', '.pack']) await rename(join(this.packDir, pack + ext), join(this.quarantineDir, pack + ext)).catch(() => {});
    await unlink(join(this.packDir, pack + '.damaged')).catch(() => {});
  }

  private async forget(pack: string): Promise<void> {
    this.table.remove(pack);
    this.provisional.delete(pack);
    this.salvaged.delete(pack);
    this.dicts.delete(pack);
    this.forgetStoredFiles();
    await this.readers.close(pack);
  }

  private lookup(hash: string): Loc | undefined {
    if (this.damaged.has(hash)) return undefined;
    return this.table.find(hash);
  }

  /** Hashes a read found damaged in every copy: the store answers as if it did not have them (so they are written
   *  afresh), and their packs are marked for repair. */
  private readonly damaged = new Set<string>();
  /** Hashes whose stored copy was read back and verified by this process. */
  private readonly verified = new Set<string>();
  /** The verified dictionary of each compacted pack read from (null: none of its copies verifies). */
  private readonly dicts = new Map<string, Buffer | null>();

  /**
   * @internal The deflate dictionary of `pack` (F_DICT objects need it), read and verified once: the first of its
   * copies that matches its hash (a pack marked for repair when one does not). Undefined when the pack has none or
   * none is intact.
   */
  dictionaryOf(pack: string): Buffer | undefined {
    const known = this.dicts.get(pack);
    if (known !== undefined) return known ?? undefined;
    let found: Buffer | null = null;
    for (const loc of this.table.dictionaries(pack)) {
      try {
        const data = this.readers.readSync(loc);
        if (verifyStored(loc, data)) {
          found ??= data;
          continue;
        }
      } catch {
        /* unreadable copy: the next one */
      }
      // every copy is checked (16 KiB, once per pack and process), so that the pack is mended (rewritten with two
      // good copies) before the other copy can be damaged too
      this.noteDamaged(pack, loc.hash);
    }
    this.dicts.set(pack, found);
    return found ?? undefined;
  }

  has(hash: string): boolean {
    return !this.damaged.has(hash) && this.table.contains(hash);
  }

  /**
   * Files of the workspace model (by node) whose blob a committed pack holds, with that blob's hash: a snapshot
   * rewrites the trees of every folder on the path to a change, and looking up each unchanged file of those folders
   * was ~50,000 index searches for a 1,000-file rewind's pre-restore snapshot. Forgotten whole whenever an object can
   * have left the store (a pack forgotten: gc, merge, repair, another process's gc seen by reload; a copy found
   * damaged), so a node found here names a blob has() would find.
   */
  private storedFiles = new WeakMap<object, string>();
  /** Counts those forgettings: what a writer saw stored before one may be gone after it. */
  private storedEpoch = 0;

  /**
   * Files known stored by where they come from, not one by one: the nodes a stat index makes (StatIndex.madeUnchanged)
   * when that index was encoded from a model whose snapshot was committed, as of that epoch. A long-lived checkpointer
   * rebuilds its tree from such an index to keep it compact (ChangeTracker.compactModel), and its nodes are new
   * objects that storedFiles does not know. Forgotten with storedFiles.
   */
  private storedOrigin: ((file: { hash: string }) => boolean) | undefined;

  private forgetStoredFiles(): void {
    this.storedFiles = new WeakMap();
    this.storedOrigin = undefined;
    this.storedEpoch++;
  }

  /** The store's epoch of storedFiles, for noteStoredFiles. */
  get filesEpoch(): number {
    return this.storedEpoch;
  }

  /** `file` (a model node) names a blob a committed pack holds (see storedFiles). */
  isKnownStored(file: { hash: string }): boolean {
    return this.storedFiles.get(file) === file.hash || (this.storedOrigin !== undefined && this.storedOrigin(file) && !this.damaged.has(file.hash));
  }

  /** Every file `from` recognises names a blob a committed pack holds, as of `epoch` (see storedOrigin). */
  noteStoredOrigin(from: (file: { hash: string }) => boolean, epoch: number): void {
    if (epoch === this.storedEpoch) this.storedOrigin = from;
  }

  /** @internal Called by PackWriter after its commit with the model's files it found stored or wrote, as of `epoch`. */
  noteStoredFiles(files: readonly { hash: string }[], epoch: number): void {
    if (epoch !== this.storedEpoch) return;
    for (const f of files) if (!this.damaged.has(f.hash)) this.storedFiles.set(f, f.hash);
  }

  /**
   * True when a copy of `hash` is stored, of this kind, and reads back with the right content (checked once per
   * process). A damaged copy answers false and is marked, so that what must survive (a pre-restore snapshot) is
   * written afresh instead of deduplicated against it.
   */
  hasVerified(hash: string, kind: ObjectKind): boolean {
    if (this.verified.has(hash)) return true;
    // most hashes a pre-restore snapshot asks about are fresh edits no pack holds: one index lookup answers that,
    // where gathering every copy walks every pack's index (~45 ms of a 1,000-file rewind under load)
    if (!this.has(hash)) return false;
    for (const loc of this.table.locations(hash)) {
      if (kindOf(loc.flags) !== kind) continue;
      try {
        if (verifyStored({ hash, ...loc }, this.readers.readSync(loc), loc.flags & F_DICT ? this.dictionaryOf(loc.pack) : undefined)) {
          this.verified.add(hash);
          return true;
        }
      } catch {
        /* unreadable copy */
      }
      this.noteDamaged(loc.pack, hash);
    }
    this.damaged.add(hash);
    this.forgetStoredFiles();
    return false;
  }

  /**
   * Throws unless every blob in `hashes` is stored and reads back intact: what a restore's undo (or its rollback)
   * will read, checked before the restore changes anything.
   */
  assertReadable(hashes: Iterable<string>, what: string): void {
    const bad = [...hashes].filter((h) => !this.hasVerified(h, 'blob'));
    if (bad.length)
      throw new StoreCorruptError(
        `${what}: ${bad.length} of the objects it needs could not be stored intact (${bad
          .slice(0, 3)
          .map((h) => h.slice(0, 12))
          .join(', ')}${bad.length > 3 ? ', …' : ''}); nothing was changed`,
      );
  }

  /** A copy of `hash` is stored and it is a blob (one lookup). */
  isBlob(hash: string): boolean {
    const loc = this.lookup(hash);
    return loc !== undefined && (loc.flags & F_TREE) === 0;
  }

  /** The stored copy of `hash` is a tree. */
  isTree(hash: string): boolean {
    const loc = this.lookup(hash);
    return loc !== undefined && (loc.flags & F_TREE) !== 0;
  }

  /** Marks a pack for repair at the next locked reload (a marker file, so other processes learn it too). */
  private noteDamaged(pack: string, hash: string): void {
    void writeFile(join(this.packDir, pack + '.damaged'), hash + '\n', { flag: 'a' }).catch(() => {});
  }

  get objectCount(): number {
    return this.table.objectCount;
  }

  /** The packs and indexes this store has loaded, in bytes, without touching the disk (sizeOnDisk also counts what
   *  else lies in the folder). */
  knownSize(): number {
    return this.table.knownSize;
  }

  /** Bytes of all live packs and indexes. */
  async sizeOnDisk(): Promise<number> {
    // asked after every snapshot (the size cap), with two files per snapshot in the folder: 32 stats at a time
    const names = await readdir(this.packDir);
    const sizeOf = (name: string) =>
      stat(join(this.packDir, name)).then(
        (st) => st.size,
        () => 0,
      ); // removed meanwhile
    let total = 0;
    for (let i = 0; i < names.length; i += 32) for (const size of await Promise.all(names.slice(i, i + 32).map(sizeOf))) total += size;
    return total;
  }

  /**
   * Reads and verifies an object: its content must hash to `hash`; a damaged copy is skipped for another one. `path`
   * (the workspace file it holds) names what is lost in the error when no good copy is left.
   */
  async read(hash: string, kind: ObjectKind, path?: string): Promise<Buffer> {
    try {
      return await this.readVerified(hash, kind);
    } catch (err) {
      if (path !== undefined && err instanceof StoreCorruptError) throw new StoreCorruptError(`${path} cannot be brought back: its ${err.message}`);
      throw err;
    }
  }

  private async readVerified(hash: string, kind: ObjectKind): Promise<Buffer> {
    const first = this.lookup(hash);
    if (!first)
      throw new StoreCorruptError(
        this.damaged.has(hash) || this.lost.has(hash) ? damagedObject(hash) : `object ${hash.slice(0, 12)} is missing from the checkpoint store`,
      );
    let wrongKind: StoreCorruptError | undefined;
    let rest: Loc[] | undefined;
    const tried = new Set<string>();
    for (let loc: Loc | undefined = first; loc; loc = rest.shift()) {
      tried.add(loc.pack);
      try {
        return await this.readAt(hash, kind, loc);
      } catch (err) {
        if (!(err instanceof StoreCorruptError)) throw err;
        if (/is not a /.test(err.message)) wrongKind ??= err;
        else this.noteDamaged(loc.pack, hash);
      }
      // the other copies are looked up only when the first fails: a look in every pack's index cost about as much as
      // the read itself for each small object of a restore
      rest ??= this.table.locations(hash).filter((l) => l.pack !== first.pack);
    }
    // where a repair would find it: a damaged index may point at the wrong bytes of an intact pack
    for (const pack of tried) {
      const loc = this.salvagedLoc(pack, hash);
      if (!loc) continue;
      try {
        return await this.readAt(hash, kind, loc);
      } catch {
        /* not intact there either */
      }
    }
    this.damaged.add(hash);
    this.forgetStoredFiles();
    // one reason for every way a copy can be damaged (cut short, not inflating, not matching its hash): which one a
    // read meets depends on whether the pack was mended in between, and a dry run must give the real run's reason
    throw wrongKind ?? new StoreCorruptError(damagedObject(hash));
  }

  private async readAt(hash: string, kind: ObjectKind, loc: Loc): Promise<Buffer> {
    if (kindOf(loc.flags) !== kind) throw new StoreCorruptError(`object ${hash.slice(0, 12)} is not a ${kind}`);
    const raw = loc.length <= 256 * 1024 ? this.readers.readSync(loc) : await this.readers.read(loc);
    let data: Buffer;
    try {
      const dict = loc.flags & F_DICT ? this.dictionaryOf(loc.pack) : undefined;
      // small objects inline: a thread-pool round trip costs more than inflating a few KiB
      data = loc.rawSize <= 256 * 1024 ? inflateStored(loc, raw, dict) : await inflateStoredAsync(loc, raw, dict);
    } catch {
      throw new StoreCorruptError(`object ${hash.slice(0, 12)} does not decompress`);
    }
    if (data.length !== loc.rawSize || hashObject(kind, data) !== hash)
      throw new StoreCorruptError(`object ${hash.slice(0, 12)} is damaged (content does not match its hash)`);
    return data;
  }

  /**
   * `verify`: dedupe only against copies that read back intact (blobs in the set, and the trees of the folders in
   * `verifyDirs`, every tree when it is not given); see hasVerified.
   */
  newPack(opts: { verify?: ReadonlySet<string>; verifyDirs?: ReadonlySet<string>; kind?: PackKind } = {}): PackWriter {
    return new PackWriter(this, opts.verify, opts.verifyDirs, opts.kind);
  }

  /** @internal Called by PackWriter once its pack and index are in place. */
  register(pack: string, idx: Buffer, count: number, size: number): void {
    this.table.add(pack, { idx, count, size }, this.indexFileToHold(pack));
    // a fresh copy of an object found damaged: the store has it again (reads skip the damaged copy)
    if (this.damaged.size) for (let i = 0; i < count; i++) this.damaged.delete(entryHash(idx, i));
  }

  /**
   * @internal Called by a verifying PackWriter after its commit: the objects it wrote were deflated from the very
   * bytes that were hashed, so reading them back (from the page cache, right after writing) would only repeat that
   * check. A pre-restore snapshot's undo blobs are almost all fresh, and this read-back was ~40 ms of a 1,000-file
   * restore. Copies written by gc (addStored) never come here: those are copied unread.
   */
  noteWrittenIntact(hashes: Iterable<string>): void {
    for (const h of hashes) this.verified.add(h);
  }

  /** Keeps only the objects in `live` (pack-compaction.ts). */
  gc(live: Set<string>): Promise<{ removedObjects: number; freedBytes: number }> {
    return gcPacks(this, live);
  }

  /**
   * Merges the small packs into one once there are more than `max` of them: a snapshot writes a pack, and every fresh
   * process reads every pack's index, so their number must not grow with the number of snapshots.
   */
  consolidateSmallPacks(max = MAX_SMALL_PACKS): Promise<number> {
    return mergeSmallPacks(this, max);
  }

  /** Whether consolidateSmallPacks has something to merge. */
  hasTooManySmallPacks(max = MAX_SMALL_PACKS): boolean {
    return this.table.smallCount(max + 1) > max;
  }

  /** @internal Removes a pack whose objects are elsewhere now. */
  async dropPack(pack: string): Promise<void> {
    await this.forget(pack);
    // index first: a pack without an index is unreachable garbage, an index without a pack would be a lie
    await unlink(join(this.packDir, pack + '.idx')).catch(() => {});
    await unlink(join(this.packDir, pack + '.pack')).catch(() => {});
  }

  /** The whole index files a burst of lookups read (DiskPackIndex) are given back: call when an operation ends. */
  endIndexBursts(): void {
    this.table.endBursts();
  }

  closeHandles(): Promise<void> {
    this.table.closeFiles();
    return this.readers.closeAll();
  }
}
