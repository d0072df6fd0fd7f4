// Writing one pack: objects gathered into large positional writes, each behind its self-describing header
// (pack-format.ts), then made visible as pack + index (each temp + rename), so a crash leaves garbage, never a bad object.
import { randomBytes } from 'node:crypto';
import { closeSync, fsync, openSync, renameSync, writeSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateRaw } from 'node:zlib';
import { syncDir } from '../atomic-write';
import {
  deflateRawSized,
  F_DEFLATED,
  F_DICTIONARY,
  F_TREE,
  hashDictionary,
  HUFFMAN_ONLY,
  MAX_OBJECT_SIZE,
  MIN_DEFLATE,
  type ObjectKind,
} from './object-format';
import { OBJ_HEADER, PACK_MAGIC, encodeObjectHeader } from './pack-format';
import { encodeIndex, type IndexEntry } from './pack-index';
import { COMPACTED_SUFFIX } from './pack-table';

/**
 * What a pack writer needs of the store it writes into (ObjectStore): a structural type, so that the store can
 * create writers without the two modules importing each other.
 */
export interface PackStore {
  readonly packDir: string;
  readonly filesEpoch: number;
  has(hash: string): boolean;
  hasVerified(hash: string, kind: ObjectKind): boolean;
  isBlob(hash: string): boolean;
  isKnownStored(file: { hash: string }): boolean;
  noteStoredFiles(files: readonly { hash: string }[], epoch: number): void;
  register(pack: string, idx: Buffer, count: number, size: number): void;
  noteWrittenIntact(hashes: Iterable<string>): void;
}

/** What a compacted pack (store-compaction.ts) is written with. */
export interface PackKind {
  /** Named as a compacted pack (see COMPACTED_SUFFIX). */
  compacted?: boolean;
  /**
   * The deflate dictionary its F_DICT objects were compressed with: written into the pack before any object and again
   * after the last, so that one damaged copy loses none of them (a compacted pack is often the only copy of each).
   */
  dictionary?: Buffer;
  /**
   * Written without the store lock (compaction): temp names a locked reload does not take for a snapshot's pack
   * that lost its rename (the store's orphan adoption would put it in place, or delete it, while it is written).
   */
  background?: boolean;
  /**
   * A bulk snapshot's from its first object (the pre-restore snapshot of a rewind of BULK_OBJECTS files or more): its
   * blobs are stored as a bulk pack's past BULK_OBJECTS are, and its trees as they are (compaction deflates those,
   * store-compaction.ts). Deflating ~750 trees and the first 128 files at level 1 was ~55 ms of a 1,000-file
   * restore's main thread, for a pack that a compaction rewrites soon after.
   */
  bulk?: boolean;
}

/** The temp-name prefix of a background writer's files (see PackKind.background); still `tmp-` for gc's sweep. */
export const BACKGROUND_TEMP = 'tmp-c-';

const deflateAsync = promisify(deflateRaw);
/** Objects up to this size are deflated in the call (a thread-pool round trip costs more), bigger ones on the pool. */
const DEFLATE_INLINE_MAX = 256 * 1024;
const fsyncFd = promisify(fsync);

/**
 * Objects after which a pack is a bulk snapshot's (a first snapshot, a checkout of another branch, the undo snapshot of
 * a restore of many files: at level 1 its 1,000 blobs were ~100 ms of a 1,000-file restore's CPU): its blobs are then
 * stored as they are while the disk keeps up with the pack's writes, and only Huffman-coded (raw deflate still, so
 * every version reads them) while it does not (compressBulk), as compaction (store-compaction.ts) recompresses them
 * soon after anyway. A first snapshot was mostly compression: Huffman coding alone was ~55 µs of CPU per 8 KiB file,
 * ten times its sha256, where the disk took the raw bytes as fast. The hashing thread (blob-thread-main.ts) stores the
 * same bytes (bulkStored), asked with the writer's compressBulk at the time.
 */
export const BULK_OBJECTS = 128;
const LEVEL_1 = { level: 1 };
/**
 * Bytes handed to the pack file and not yet written, past which a bulk snapshot compresses its blobs: writes that
 * queue up mean the disk, not the CPU, is what the snapshot waits for (this machine's disk takes ~100-200 MB/s under
 * load, about what two cores hash and store raw), and fewer bytes then finish sooner.
 */
export const DISK_BEHIND_BYTES = 16 * 1024 * 1024;

/** Appends new objects to one pack; positional writes let many compressions finish in any order. */
export class PackWriter {
  readonly name: string;
  private fd: Promise<FileHandle> | undefined;
  private size = 0;
  private readonly pending = new Map<string, Promise<void>>();
  private readonly entries: IndexEntry[] = [];
  newBytes = 0;
  /** The model's files this pack's snapshot found stored as blobs (hasFile) or added (noteFile), for the store
   *  after the commit (ObjectStore.noteStoredFiles). */
  private readonly files: { hash: string }[] = [];
  private readonly added: { hash: string }[] = [];
  private readonly filesEpoch: number;

  constructor(
    private readonly store: PackStore,
    /** Blobs whose existing copy must read back intact before it counts (trees always do, when set). */
    private readonly verify?: ReadonlySet<string>,
    /**
     * With `verify`: the folders (workspace-relative, '' the root) whose stored trees must be checked, with what is
     * below them; undefined: every folder. A pre-restore snapshot's undo reads only the folders on the paths it puts
     * back, so only those need checking; a stored folder elsewhere is taken as stored, as in any snapshot.
     */
    private readonly verifyDirs?: ReadonlySet<string>,
    private readonly kind: PackKind = {},
  ) {
    this.name = `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}${kind.compacted ? COMPACTED_SUFFIX : ''}`;
    this.filesEpoch = store.filesEpoch;
  }

  /** The dictionary this pack's F_DICT objects are compressed with, if any. */
  get dictionary(): Buffer | undefined {
    return this.kind.dictionary;
  }

  /** Whether the store's copy of `hash` can stand in for writing it (see ObjectStore.hasVerified). */
  private stored(hash: string, kind: ObjectKind): boolean {
    if (!this.verify || (kind === 'blob' && !this.verify.has(hash))) return this.store.has(hash);
    return this.store.hasVerified(hash, kind);
  }

  private get tmpPack(): string {
    return join(this.store.packDir, `${this.kind.background ? BACKGROUND_TEMP : 'tmp-'}${this.name}.pack`);
  }

  get objectCount(): number {
    return this.entries.length;
  }

  /**
   * True when the store or this pack already holds (or is writing) the object. A verifying writer answers false for
   * stored trees, so that the caller goes down into them and each object below is checked too.
   */
  has(hash: string): boolean {
    if (this.pending.has(hash)) return true;
    if (this.verify) return this.verify.has(hash) ? this.store.hasVerified(hash, 'blob') : this.store.isBlob(hash);
    return this.store.has(hash);
  }

  /**
   * `has` for a file node of the model, with no lookup when the store knows it stored (ObjectStore.isKnownStored).
   * A node is passed on to the store after the commit only when its copy is known to be a blob: a file's content can
   * be made to hash like a stored tree.
   */
  hasFile(file: { hash: string }): boolean {
    const hash = file.hash;
    if (this.verify?.has(hash)) {
      if (this.pending.has(hash)) return true;
      if (!this.store.hasVerified(hash, 'blob')) return false;
    } else if (!this.store.isKnownStored(file)) {
      if (this.pending.has(hash)) return true;
      if (!this.store.isBlob(hash)) return !this.verify && this.store.has(hash);
    }
    this.files.push(file);
    return true;
  }

  /** A file node whose blob was just added: passed on after the commit if this pack holds it as a blob. */
  noteFile(file: { hash: string }): void {
    this.added.push(file);
  }

  /** `has` for the folder at `rel`: a folder a verifying writer need not check is taken as stored when it is. */
  hasFolder(hash: string, rel: string): boolean {
    if (!this.verify || this.verifyDirs === undefined || this.verifyDirs.has(rel)) return this.has(hash);
    return this.pending.has(hash) || this.store.has(hash);
  }

  /**
   * Adds an object unless it is already stored; resolves when it is written to the pack file. `lent`: `data` is a view
   * its caller overwrites once this returns (safe-read.ts, ReadScratch), copied here if the pack keeps it as it is.
   */
  add(kind: ObjectKind, hash: string, data: Buffer, lent = false): Promise<void> {
    if (this.stored(hash, kind)) return Promise.resolve();
    const existing = this.pending.get(hash);
    if (existing) return existing;
    // what is deflated on the thread pool is read after an await
    if (lent && data.length > DEFLATE_INLINE_MAX) [data, lent] = [Buffer.from(data), false];
    const p = (async () => {
      if (data.length > MAX_OBJECT_SIZE) throw new Error('object too large for the checkpoint store');
      // level 1, like git's loose objects: on source trees it keeps most of the gain at a fraction of the time;
      // past BULK_OBJECTS, as it is or Huffman coding only (compressBulk). Small objects inline: a zlib stream per
      // call costs more than a few KiB
      const bulk = this.kind.bulk === true;
      const opts =
        kind === 'tree' ? (bulk ? undefined : LEVEL_1) : !bulk && this.entries.length < BULK_OBJECTS ? LEVEL_1 : this.compressBulk ? HUFFMAN_ONLY : undefined;
      const z =
        !opts || data.length < MIN_DEFLATE ? undefined : data.length <= DEFLATE_INLINE_MAX ? deflateRawSized(data, opts) : await deflateAsync(data, opts);
      // decided before the first await: the caller's view is only valid until then
      const stored = z && z.length < data.length ? z : lent ? Buffer.from(data) : data;
      const flags = (stored === z ? F_DEFLATED : 0) | (kind === 'tree' ? F_TREE : 0);
      await this.append(hash, stored, { rawSize: data.length, flags });
    })();
    this.pending.set(hash, p);
    return p;
  }

  /** Adds a blob another thread read, hashed and compressed (see BlobThread) unless it is already stored. */
  addPrepared(hash: string, stored: Buffer, rawSize: number, deflated: boolean): Promise<void> {
    if (this.stored(hash, 'blob')) return Promise.resolve();
    const existing = this.pending.get(hash);
    if (existing) return existing;
    if (rawSize > MAX_OBJECT_SIZE) return Promise.reject(new Error('object too large for the checkpoint store'));
    const p = this.append(hash, stored, { rawSize, flags: deflated ? F_DEFLATED : 0 });
    this.pending.set(hash, p);
    return p;
  }

  /**
   * @internal gc, compaction: copies an object's stored bytes as they are. An F_DICT object may only go into a pack
   * written with the dictionary it was compressed with; a dictionary entry is written by the pack itself.
   */
  async addStored(hash: string, stored: Buffer, loc: { rawSize: number; flags: number }): Promise<void> {
    if (this.pending.has(hash) || loc.flags & F_DICTIONARY) return;
    const p = this.append(hash, stored, loc);
    this.pending.set(hash, p);
    await p;
  }

  private chunk: Buffer[] = [];
  private chunkStart = 0;
  private chunkBytes = 0;
  private readonly flushes: Promise<void>[] = [];
  /** Bytes of flushed chunks whose writes have not finished. */
  private unwritten = 0;

  /** Whether a bulk snapshot's next blobs should be compressed: only while its writes are behind (DISK_BEHIND_BYTES). */
  get compressBulk(): boolean {
    return this.unwritten + this.chunkBytes > DISK_BEHIND_BYTES;
  }

  /** Objects are gathered into ~4 MiB writes: one write per object would cost a thread-pool round trip each. */
  private async append(hash: string, stored: Buffer, meta: { rawSize: number; flags: number }): Promise<void> {
    if (!this.fd) {
      this.fd = open(this.tmpPack, 'wx');
      this.chunk.push(PACK_MAGIC);
      this.chunkBytes += PACK_MAGIC.length;
      this.size = PACK_MAGIC.length;
      // the dictionary first: a scan of a damaged pack (pack-salvage.ts) has it before the objects that need it
      const dict = this.kind.dictionary;
      if (dict) {
        const dictHash = hashDictionary(dict);
        this.pending.set(dictHash, Promise.resolve());
        await this.append(dictHash, dict, { rawSize: dict.length, flags: F_DICTIONARY });
      }
    }
    // each object's header makes the pack readable without its index (see pack-format.ts)
    const header = encodeObjectHeader({ hash, length: stored.length, rawSize: meta.rawSize, flags: meta.flags });
    const offset = this.size + OBJ_HEADER;
    this.size += OBJ_HEADER + stored.length;
    this.newBytes += OBJ_HEADER + stored.length;
    this.entries.push({ hash, offset, length: stored.length, rawSize: meta.rawSize, flags: meta.flags });
    this.chunk.push(header, stored);
    this.chunkBytes += OBJ_HEADER + stored.length;
    if (this.chunkBytes >= 4 * 1024 * 1024) this.flush();
  }

  private flush(): void {
    if (this.chunkBytes === 0) return;
    // one gathered write of the objects' own buffers: joining them first copied every byte of a pack once more, on
    // the thread that scans and hashes
    const bufs = this.chunk;
    const bytes = this.chunkBytes;
    const at = this.chunkStart;
    this.chunkStart += bytes;
    this.chunk = [];
    this.chunkBytes = 0;
    this.unwritten += bytes;
    const fdp = this.fd!;
    this.flushes.push(
      (async () => {
        try {
          await writeAll(await fdp, bufs, at);
        } finally {
          this.unwritten -= bytes;
        }
      })(),
    );
  }

  private preparedIdx: Buffer | undefined;

  private get tmpIdx(): string {
    return join(this.store.packDir, `${this.kind.background ? BACKGROUND_TEMP : 'tmp-'}${this.name}.idx`);
  }

  /** Makes the pack visible (pack, then index, each temp + rename). `durable` fsyncs both first, and the folder after. */
  async commit(durable: boolean): Promise<void> {
    await (
      await this.commitVisible(durable)
    ).synced;
  }

  /**
   * commit() up to the renames: the pack is in place (and loaded) when this resolves, and `synced` is its folder's
   * fsync when `durable`, so that a caller with a rename of its own (a snapshot's record) fsyncs both folders at once.
   */
  async commitVisible(durable: boolean): Promise<{ synced: Promise<void> }> {
    if (!(await this.prepare(durable))) return { synced: Promise.resolve() }; // nothing new
    return this.publishVisible(durable);
  }

  /**
   * Writes everything to the temp pack and index (fsynced when `durable`), nothing visible yet; false when there is
   * nothing new. Compaction prepares without the store lock and publishes under it.
   */
  async prepare(durable: boolean): Promise<boolean> {
    await Promise.all(this.pending.values());
    if (!this.fd) return false; // nothing new
    const dict = this.kind.dictionary;
    if (dict) await this.append(hashDictionary(dict), dict, { rawSize: dict.length, flags: F_DICTIONARY });
    this.flush();
    await Promise.all(this.flushes);
    const fd = await this.fd;
    const idx = encodeIndex(this.entries);
    const tmpIdx = this.tmpIdx;
    // the pack's fsync and the index's write + fsync at once (a prompt's hook waits for both): neither is visible
    // before both are on disk, as the renames come after
    const pack = (async () => {
      if (durable) await fd.sync();
      await fd.close();
    })();
    // the index (a few KiB after a prompt) and the renames with synchronous calls: only the fsyncs wait for the disk
    const index = (async () => {
      const fd = openSync(tmpIdx, 'wx');
      try {
        for (let done = 0; done < idx.length;) done += writeSync(fd, idx, done, idx.length - done);
        if (durable) await fsyncFd(fd);
      } finally {
        closeSync(fd);
      }
    })();
    for (const r of await Promise.allSettled([pack, index])) if (r.status === 'rejected') throw r.reason;
    this.preparedIdx = idx;
    return true;
  }

  /** Puts a prepared pack in place (pack, then index) and waits for its folder's fsync when `durable`. */
  async publish(durable: boolean): Promise<void> {
    await this.publishVisible(durable).synced;
  }

  private publishVisible(durable: boolean): { synced: Promise<void> } {
    const idx = this.preparedIdx;
    if (!idx) return { synced: Promise.resolve() };
    const dir = this.store.packDir;
    renameSync(this.tmpPack, join(dir, this.name + '.pack'));
    renameSync(this.tmpIdx, join(dir, this.name + '.idx'));
    this.preparedIdx = undefined;
    this.store.register(this.name, idx, this.entries.length, this.size);
    const blobs = new Set(this.entries.filter((e) => (e.flags & F_TREE) === 0).map((e) => e.hash));
    this.store.noteStoredFiles([...this.files, ...this.added.filter((f) => blobs.has(f.hash))], this.filesEpoch);
    if (this.verify) this.store.noteWrittenIntact(this.entries.map((e) => e.hash));
    return { synced: durable ? syncDir(dir) : Promise.resolve() };
  }

  /** Drops an unfinished pack (an error happened before commit). */
  async abort(): Promise<void> {
    await Promise.allSettled(this.pending.values());
    await Promise.allSettled(this.flushes);
    if (!this.fd) return;
    await (await this.fd).close().catch(() => {});
    await unlink(this.tmpPack).catch(() => {});
    await unlink(this.tmpIdx).catch(() => {});
    this.preparedIdx = undefined;
  }
}

/** Writes `bufs` back to back at `position`, however many calls that takes (a write may be partial). */
async function writeAll(fd: FileHandle, bufs: Buffer[], position: number): Promise<void> {
  let rest = bufs.filter((b) => b.length > 0);
  let at = position;
  while (rest.length > 0) {
    let n = (await fd.writev(rest, at)).bytesWritten;
    if (n === 0) throw new Error('the pack file took no bytes');
    at += n;
    let i = 0;
    while (i < rest.length && n >= rest[i]!.length) n -= rest[i++]!.length;
    rest = rest.slice(i);
    if (n > 0) rest[0] = rest[0]!.subarray(n);
  }
}
