// Content-addressed object store: blobs (file contents, symlink targets) and trees (folders), deflated and appended
// to pack files, one pack per snapshot, so a snapshot costs one file write plus what changed. A pack only counts once
// its index exists (written after the pack, both temp + rename), so a crash leaves garbage for gc, never a bad object.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync, inflateRaw, inflateRawSync } from 'node:zlib';
import { encodeIndex, entryAt, entryHash, findEntry, indexCount, type IndexEntry } from './pack-index';

const deflateAsync = promisify(deflateRaw);
const inflateAsync = promisify(inflateRaw);

const F_DEFLATED = 1;
const F_TREE = 2;
/** Objects are capped so sizes fit the index; maxFileSize is clamped to this. */
export const MAX_OBJECT_SIZE = 0xffff_ffff;

export type ObjectKind = 'blob' | 'tree';

export class StoreCorruptError extends Error {}

interface Loc {
  pack: string;
  offset: number;
  length: number;
  rawSize: number;
  flags: number;
}

export function hashObject(kind: ObjectKind, data: Buffer): string {
  const h = createHash('sha256');
  if (kind === 'tree') h.update('tree\0');
  return h.update(data).digest('hex');
}

const HEX64 = /^[0-9a-f]{64}$/;
export function isObjectHash(s: unknown): s is string {
  return typeof s === 'string' && HEX64.test(s);
}

interface PackIndex {
  /** Index entries sorted by hash (binary-searched; no per-object allocation for packs nobody reads). */
  idx: Buffer;
  count: number;
  size: number;
}

/** Packs up to this many objects are also indexed in one shared map: after many small snapshots a lookup would
 *  otherwise binary-search a hundred tiny indexes (a restore looks up every file of every folder it touches). */
const SMALL_PACK = 4096;
/** More small packs than this and the next snapshot merges them (see consolidateSmallPacks). */
const MAX_SMALL_PACKS = 32;

export class ObjectStore {
  private readonly packs = new Map<string, PackIndex>();
  /** Hash (hex) → entry number, for the objects of small packs, per pack; see SMALL_PACK. */
  private readonly smallPacks = new Map<string, Map<string, number>>();
  private readonly inSmallPacks = new Map<string, string>();
  private readonly handles = new Map<string, Promise<FileHandle>>();

  private constructor(readonly dir: string) {}

  get packDir(): string {
    return join(this.dir, 'packs');
  }

  static async open(dir: string): Promise<ObjectStore> {
    const store = new ObjectStore(dir);
    await mkdir(store.packDir, { recursive: true });
    await store.reload();
    return store;
  }

  /** Picks up packs other processes added and forgets packs gc removed (only new indexes are read). */
  async reload(): Promise<void> {
    const names = new Set(await readdir(this.packDir));
    for (const pack of [...this.packs.keys()]) {
      if (!names.has(pack + '.idx') || !names.has(pack + '.pack')) await this.forget(pack);
    }
    // read the new indexes all at once: one snapshot makes one pack, and a fresh process (the CLI) reads them all
    const fresh = [...names].filter((name) => /^[0-9a-z]+-[0-9a-f]+\.idx$/.test(name) && !this.packs.has(name.slice(0, -4)) && names.has(name.slice(0, -4) + '.pack')); // an index without its pack reaches nothing
    const load = async (name: string) => {
      const pack = name.slice(0, -4);
      try {
        const [st, buf] = await Promise.all([stat(join(this.packDir, pack + '.pack')), readFile(join(this.packDir, name))]);
        return { name, pack, size: st.size, buf };
      } catch {
        return undefined; // removed meanwhile
      }
    };
    const loaded: Awaited<ReturnType<typeof load>>[] = [];
    for (let i = 0; i < fresh.length; i += 32) loaded.push(...(await Promise.all(fresh.slice(i, i + 32).map(load))));
    for (const l of loaded) {
      if (!l || this.packs.has(l.pack)) continue;
      const { name, pack, size, buf } = l;
      const count = indexCount(buf);
      if (count === undefined) throw new StoreCorruptError(`pack index ${name} is damaged`);
      this.addPack(pack, { idx: buf, count, size });
    }
  }

  private addPack(pack: string, p: PackIndex): void {
    this.packs.set(pack, p);
    if (p.count > SMALL_PACK) return;
    const entries = new Map<string, number>();
    for (let i = 0; i < p.count; i++) {
      const hash = entryHash(p.idx, i);
      entries.set(hash, i);
      if (!this.inSmallPacks.has(hash)) this.inSmallPacks.set(hash, pack);
    }
    this.smallPacks.set(pack, entries);
  }

  private dropSmallPack(pack: string): void {
    const entries = this.smallPacks.get(pack);
    if (!entries) return;
    this.smallPacks.delete(pack);
    for (const hash of entries.keys()) {
      if (this.inSmallPacks.get(hash) !== pack) continue;
      this.inSmallPacks.delete(hash);
      for (const [other, e] of this.smallPacks) {
        if (e.has(hash)) {
          this.inSmallPacks.set(hash, other);
          break;
        }
      }
    }
  }

  private locAt(pack: string, p: PackIndex, i: number): Loc {
    const { offset, length, rawSize, flags } = entryAt(p.idx, i);
    if (offset + length > p.size) throw new StoreCorruptError(`pack index ${pack}.idx points past the end of its pack`);
    return { pack, offset, length, rawSize, flags };
  }

  private async forget(pack: string): Promise<void> {
    this.packs.delete(pack);
    this.dropSmallPack(pack);
    const sfd = this.syncFds.get(pack);
    if (sfd !== undefined) {
      this.syncFds.delete(pack);
      try {
        closeSync(sfd);
      } catch {
        /* already closed */
      }
    }
    const h = this.handles.get(pack);
    if (h) {
      this.handles.delete(pack);
      await (await h.catch(() => undefined))?.close();
    }
  }

  private lookup(hash: string): Loc | undefined {
    if (!isObjectHash(hash)) return undefined;
    const small = this.inSmallPacks.get(hash);
    if (small !== undefined) {
      const p = this.packs.get(small);
      const i = this.smallPacks.get(small)?.get(hash);
      if (p && i !== undefined) return this.locAt(small, p, i);
    }
    let key: Buffer | undefined;
    const head = parseInt(hash.slice(0, 8), 16);
    for (const [pack, p] of this.packs) {
      if (p.count <= SMALL_PACK) continue;
      key ??= Buffer.from(hash, 'hex');
      const i = findEntry(p.idx, p.count, key, head);
      if (i >= 0) return this.locAt(pack, p, i);
    }
    return undefined;
  }

  /** Every object of every pack (gc). */
  private *entries(): Generator<{ hash: string; loc: Loc }> {
    for (const [pack, p] of this.packs) {
      for (let i = 0; i < p.count; i++) {
        const { hash, ...loc } = entryAt(p.idx, i);
        yield { hash, loc: { pack, ...loc } };
      }
    }
  }

  has(hash: string): boolean {
    return this.lookup(hash) !== undefined;
  }

  get objectCount(): number {
    let n = 0;
    for (const p of this.packs.values()) n += p.count;
    return n;
  }

  /** Bytes of all live packs and indexes. */
  async sizeOnDisk(): Promise<number> {
    // asked after every snapshot (the size cap), with two files per snapshot in the folder: 32 stats at a time
    const names = await readdir(this.packDir);
    const sizeOf = (name: string) => stat(join(this.packDir, name)).then((st) => st.size, () => 0); // removed meanwhile
    let total = 0;
    for (let i = 0; i < names.length; i += 32) for (const size of await Promise.all(names.slice(i, i + 32).map(sizeOf))) total += size;
    return total;
  }

  private handle(pack: string): Promise<FileHandle> {
    let h = this.handles.get(pack);
    if (!h) {
      h = open(join(this.packDir, pack + '.pack'), 'r');
      this.handles.set(pack, h);
      h.catch(() => this.handles.delete(pack));
    }
    return h;
  }

  /** Reads and verifies an object: its content must hash to `hash`, or the store is corrupt. */
  async read(hash: string, kind: ObjectKind): Promise<Buffer> {
    const loc = this.lookup(hash);
    if (!loc) throw new StoreCorruptError(`object ${hash.slice(0, 12)} is missing from the checkpoint store`);
    if ((loc.flags & F_TREE ? 'tree' : 'blob') !== kind) throw new StoreCorruptError(`object ${hash.slice(0, 12)} is not a ${kind}`);
    const raw = loc.length <= 256 * 1024 ? this.readRawSync(loc) : await this.readRaw(loc);
    let data = raw;
    if (loc.flags & F_DEFLATED) {
      const opts = { maxOutputLength: Math.max(loc.rawSize, 1) };
      try {
        // small objects inline: a thread-pool round trip costs more than inflating a few KiB
        data = loc.rawSize <= 256 * 1024 ? inflateRawSync(raw, opts) : await inflateAsync(raw, opts);
      } catch {
        throw new StoreCorruptError(`object ${hash.slice(0, 12)} does not decompress`);
      }
    }
    if (data.length !== loc.rawSize || hashObject(kind, data) !== hash) throw new StoreCorruptError(`object ${hash.slice(0, 12)} is damaged (content does not match its hash)`);
    return data;
  }

  private readonly syncFds = new Map<string, number>();

  /** Reads the stored bytes synchronously: restores and previews read many small objects. */
  private readRawSync(loc: Loc): Buffer {
    let fd = this.syncFds.get(loc.pack);
    if (fd === undefined) {
      fd = openSync(join(this.packDir, loc.pack + '.pack'), 'r');
      this.syncFds.set(loc.pack, fd);
    }
    const buf = Buffer.allocUnsafe(loc.length);
    let done = 0;
    while (done < loc.length) {
      const n = readSync(fd, buf, done, loc.length - done, loc.offset + done);
      if (n === 0) throw new StoreCorruptError(`pack ${loc.pack} is truncated`);
      done += n;
    }
    return buf;
  }

  private async readRaw(loc: Loc): Promise<Buffer> {
    const h = await this.handle(loc.pack);
    const buf = Buffer.allocUnsafe(loc.length);
    const { bytesRead } = await h.read(buf, 0, loc.length, loc.offset);
    if (bytesRead !== loc.length) throw new StoreCorruptError(`pack ${loc.pack} is truncated`);
    return buf;
  }

  newPack(): PackWriter {
    return new PackWriter(this);
  }

  /** @internal Called by PackWriter once its pack and index are in place. */
  register(pack: string, idx: Buffer, count: number, size: number): void {
    this.addPack(pack, { idx, count, size });
  }

  /**
   * Keeps only the objects in `live`: packs with nothing live are deleted, packs partly live are rewritten (stored
   * bytes copied, not recompressed). Temp files and packs without an index are removed too.
   */
  async gc(live: Set<string>): Promise<{ removedObjects: number; freedBytes: number }> {
    const before = await this.sizeOnDisk();
    const byPack = new Map<string, { hash: string; loc: Loc }[]>();
    for (const { hash, loc } of this.entries()) {
      const list = byPack.get(loc.pack) ?? [];
      list.push({ hash, loc });
      byPack.set(loc.pack, list);
    }
    let removedObjects = 0;
    const seen = new Set<string>();
    for (const [pack, list] of byPack) {
      const keep = list.filter((e) => live.has(e.hash) && !seen.has(e.hash));
      for (const e of keep) seen.add(e.hash);
      removedObjects += list.length - keep.length;
      if (keep.length === list.length) continue;
      if (keep.length > 0) {
        const w = this.newPack();
        for (const e of keep) await w.addStored(e.hash, await this.readRaw(e.loc), e.loc);
        await w.commit(false);
      }
      await this.dropPack(pack);
    }
    // leftovers of interrupted writes: temp files and packs whose index never landed
    for (const name of await readdir(this.packDir)) {
      const base = name.replace(/\.(pack|idx)$/, '');
      if (name.startsWith('tmp-') || (name.endsWith('.pack') && !this.packs.has(base))) await unlink(join(this.packDir, name)).catch(() => {});
    }
    await this.reload();
    const after = await this.sizeOnDisk();
    return { removedObjects, freedBytes: Math.max(0, before - after) };
  }

  /**
   * Merges the small packs into one once there are more than `max` of them (stored bytes copied, not recompressed):
   * a snapshot writes a pack, and every fresh process reads every pack's index, so their number must not grow with
   * the number of snapshots. Returns how many packs were merged. The new pack is synced before the old ones go.
   */
  async consolidateSmallPacks(max = MAX_SMALL_PACKS): Promise<number> {
    const small = [...this.packs].filter(([, p]) => p.count <= SMALL_PACK);
    if (small.length <= max) return 0;
    const w = this.newPack();
    for (const [pack, p] of small) {
      const data = await readFile(join(this.packDir, pack + '.pack'));
      for (let i = 0; i < p.count; i++) {
        const loc = this.locAt(pack, p, i);
        if (loc.offset + loc.length > data.length) throw new StoreCorruptError(`pack ${pack} is truncated`);
        await w.addStored(entryHash(p.idx, i), data.subarray(loc.offset, loc.offset + loc.length), loc);
      }
    }
    await w.commit(true);
    for (const [pack] of small) await this.dropPack(pack);
    return small.length;
  }

  private async dropPack(pack: string): Promise<void> {
    await this.forget(pack);
    // index first: a pack without an index is unreachable garbage, an index without a pack would be a lie
    await unlink(join(this.packDir, pack + '.idx')).catch(() => {});
    await unlink(join(this.packDir, pack + '.pack')).catch(() => {});
  }

  async closeHandles(): Promise<void> {
    for (const fd of this.syncFds.values()) {
      try {
        closeSync(fd);
      } catch {
        /* already closed */
      }
    }
    this.syncFds.clear();
    const hs = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(hs.map((h) => h.then((fh) => fh.close()).catch(() => {})));
  }
}

/** Appends new objects to one pack; positional writes let many compressions finish in any order. */
export class PackWriter {
  readonly name = `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
  private fd: Promise<FileHandle> | undefined;
  private size = 0;
  private readonly pending = new Map<string, Promise<void>>();
  private readonly entries: IndexEntry[] = [];
  newBytes = 0;

  constructor(private readonly store: ObjectStore) {}

  private get tmpPack(): string {
    return join(this.store.packDir, `tmp-${this.name}.pack`);
  }

  get objectCount(): number {
    return this.entries.length;
  }

  /** True when the store or this pack already holds (or is writing) the object. */
  has(hash: string): boolean {
    return this.store.has(hash) || this.pending.has(hash);
  }

  /** Adds an object unless it is already stored; resolves when it is written to the pack file. */
  add(kind: ObjectKind, hash: string, data: Buffer): Promise<void> {
    if (this.store.has(hash)) return Promise.resolve();
    const existing = this.pending.get(hash);
    if (existing) return existing;
    const p = (async () => {
      if (data.length > MAX_OBJECT_SIZE) throw new Error('object too large for the checkpoint store');
      // level 1, like git's loose objects: on source trees it keeps most of the gain at a fraction of the time
      // small objects inline: creating a zlib stream per call costs more than compressing a few KiB
      const z = data.length < 64 ? undefined : data.length <= 256 * 1024 ? deflateRawSync(data, { level: 1 }) : await deflateAsync(data, { level: 1 });
      const stored = z && z.length < data.length ? z : data;
      const flags = (stored === z ? F_DEFLATED : 0) | (kind === 'tree' ? F_TREE : 0);
      await this.append(hash, stored, { rawSize: data.length, flags });
    })();
    this.pending.set(hash, p);
    return p;
  }

  /** Adds a blob another thread read, hashed and compressed (see BlobThread) unless it is already stored. */
  addPrepared(hash: string, stored: Buffer, rawSize: number, deflated: boolean): Promise<void> {
    if (this.store.has(hash)) return Promise.resolve();
    const existing = this.pending.get(hash);
    if (existing) return existing;
    if (rawSize > MAX_OBJECT_SIZE) return Promise.reject(new Error('object too large for the checkpoint store'));
    const p = this.append(hash, stored, { rawSize, flags: deflated ? F_DEFLATED : 0 });
    this.pending.set(hash, p);
    return p;
  }

  /** @internal gc: copies an object's stored bytes as they are. */
  async addStored(hash: string, stored: Buffer, loc: { rawSize: number; flags: number }): Promise<void> {
    if (this.pending.has(hash)) return;
    const p = this.append(hash, stored, loc);
    this.pending.set(hash, p);
    await p;
  }

  private chunk: Buffer[] = [];
  private chunkStart = 0;
  private chunkBytes = 0;
  private readonly flushes: Promise<void>[] = [];

  /** Objects are gathered into ~4 MiB writes: one write per object would cost a thread-pool round trip each. */
  private async append(hash: string, stored: Buffer, meta: { rawSize: number; flags: number }): Promise<void> {
    this.fd ??= open(this.tmpPack, 'wx');
    const offset = this.size;
    this.size += stored.length;
    this.newBytes += stored.length;
    this.entries.push({ hash, offset, length: stored.length, rawSize: meta.rawSize, flags: meta.flags });
    this.chunk.push(stored);
    this.chunkBytes += stored.length;
    if (this.chunkBytes >= 4 * 1024 * 1024) this.flush();
  }

  private flush(): void {
    if (this.chunkBytes === 0) return;
    const data = this.chunk.length === 1 ? this.chunk[0]! : Buffer.concat(this.chunk, this.chunkBytes);
    const at = this.chunkStart;
    this.chunkStart += this.chunkBytes;
    this.chunk = [];
    this.chunkBytes = 0;
    const fdp = this.fd!;
    this.flushes.push(
      (async () => {
        const fd = await fdp;
        let done = 0;
        while (done < data.length) done += (await fd.write(data, done, data.length - done, at + done)).bytesWritten;
      })(),
    );
  }

  /** Makes the pack visible (pack, then index, each temp + rename). `durable` fsyncs both first. */
  async commit(durable: boolean): Promise<void> {
    await Promise.all(this.pending.values());
    if (!this.fd) return; // nothing new
    this.flush();
    await Promise.all(this.flushes);
    const fd = await this.fd;
    if (durable) await fd.sync();
    await fd.close();
    const idx = encodeIndex(this.entries);
    const dir = this.store.packDir;
    const tmpIdx = join(dir, `tmp-${this.name}.idx`);
    const ih = await open(tmpIdx, 'wx');
    await ih.writeFile(idx);
    if (durable) await ih.sync();
    await ih.close();
    await rename(this.tmpPack, join(dir, this.name + '.pack'));
    await rename(tmpIdx, join(dir, this.name + '.idx'));
    this.store.register(this.name, idx, this.entries.length, this.size);
  }

  /** Drops an unfinished pack (an error happened before commit). */
  async abort(): Promise<void> {
    await Promise.allSettled(this.pending.values());
    await Promise.allSettled(this.flushes);
    if (!this.fd) return;
    await (await this.fd).close().catch(() => {});
    await unlink(this.tmpPack).catch(() => {});
  }
}
