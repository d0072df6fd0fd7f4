// Content-addressed object store: blobs (file contents, symlink targets) and trees (folders), deflated and appended
// to pack files, one pack per snapshot, so a snapshot costs one file write plus what changed. A pack only counts once
// its index exists (written after the pack, both temp + rename), so a crash leaves garbage for gc, never a bad object.
// Packs are self-describing (pack-format.ts): each object's hash and lengths precede its bytes, so a lost or damaged
// index is rebuilt from its pack (like git's index-pack). A pack that cannot be trusted is salvaged (every object
// that still verifies is copied into a new pack) and moved aside into <store>/quarantine/ with a report, instead of
// failing the whole store.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { OBJ_HEADER, PACK_MAGIC, encodeObjectHeader, decodeObjectHeader } from './pack-format';
import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync, inflateRaw, inflateRawSync } from 'node:zlib';
import { syncDir } from './atomic-write';
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
export const MAX_SMALL_PACKS = 32;
const PACK_NAME = /^[0-9a-z]+-[0-9a-f]+\.pack$/;

/** Every entry of the index lies inside a pack of `size` bytes. */
function fitsIn(idx: Buffer, count: number, size: number): boolean {
  for (let i = 0; i < count; i++) {
    const e = entryAt(idx, i);
    if (e.offset + e.length > size) return false;
  }
  return true;
}

function readAt(fd: number, pos: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, pos + done);
    if (n === 0) throw new StoreCorruptError('pack is truncated');
    done += n;
  }
  return buf;
}

/** The stored bytes of an object inflate (when deflated) to its raw size and hash to its hash. */
function verifyStored(e: { hash: string; rawSize: number; flags: number }, stored: Buffer): boolean {
  let data = stored;
  if (e.flags & F_DEFLATED) {
    try {
      data = inflateRawSync(stored, { maxOutputLength: Math.max(e.rawSize, 1) });
    } catch {
      return false;
    }
  }
  return data.length === e.rawSize && hashObject(e.flags & F_TREE ? 'tree' : 'blob', data) === e.hash;
}

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

  get quarantineDir(): string {
    return join(this.dir, 'quarantine');
  }

  /**
   * Picks up packs other processes added and forgets packs gc removed (only new indexes are read). A pack whose index
   * is missing, damaged or points past the end of the pack, or that a read found damaged, is left out; with `repair`
   * (only under the store lock: no other writer is between its pack and index renames) it is mended instead: its index
   * rebuilt from the pack, or its good objects salvaged and the pack quarantined. Never throws for a damaged pack.
   */
  async reload(opts: { repair?: boolean } = {}): Promise<void> {
    const names = new Set(await readdir(this.packDir));
    for (const pack of [...this.packs.keys()]) {
      if (!names.has(pack + '.idx') || !names.has(pack + '.pack') || (opts.repair && names.has(pack + '.damaged'))) await this.forget(pack);
    }
    // read the new indexes all at once: one snapshot makes one pack, and a fresh process (the CLI) reads them all
    const fresh = [...names].filter((name) => PACK_NAME.test(name) && !this.packs.has(name.slice(0, -5)));
    const load = async (name: string) => {
      const pack = name.slice(0, -5);
      try {
        const st = await stat(join(this.packDir, name));
        const buf = names.has(pack + '.idx') ? await readFile(join(this.packDir, pack + '.idx')).catch(() => undefined) : undefined;
        return { pack, size: st.size, buf };
      } catch {
        return undefined; // removed meanwhile
      }
    };
    const loaded: Awaited<ReturnType<typeof load>>[] = [];
    for (let i = 0; i < fresh.length; i += 32) loaded.push(...(await Promise.all(fresh.slice(i, i + 32).map(load))));
    for (const l of loaded) {
      if (!l || this.packs.has(l.pack)) continue;
      const { pack, size, buf } = l;
      // a pack a read found damaged still serves its intact objects (every read is verified) until a writer mends it
      const damaged = opts.repair === true && names.has(pack + '.damaged');
      const count = buf && indexCount(buf);
      const problem = damaged
        ? 'a read found objects that do not match their hash'
        : !buf
          ? 'its index is missing'
          : count === undefined
            ? 'its index is damaged'
            : !fitsIn(buf, count, size)
              ? 'it is shorter than its index says (truncated)'
              : undefined;
      if (!problem) {
        this.addPack(pack, { idx: buf!, count: count!, size });
        continue;
      }
      if (!opts.repair) continue; // left out until a writer (under the lock) mends it
      await this.repairPack(pack, buf, problem);
    }
  }

  /**
   * Mends a pack: when it is self-describing and every object in it verifies, its index is rebuilt from it; otherwise
   * the objects that still verify are copied into a new pack and the pack (with its index) moves to quarantine/,
   * next to a report of what was lost.
   */
  private async repairPack(pack: string, idxBuf: Buffer | undefined, problem: string): Promise<void> {
    const file = join(this.packDir, pack + '.pack');
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return; // removed meanwhile
    }
    const good: { entry: IndexEntry; stored: Buffer }[] = [];
    const lost: string[] = [];
    let complete = false;
    let selfDescribing = false;
    try {
      const size = fstatSync(fd).size;
      const head = readAt(fd, 0, Math.min(PACK_MAGIC.length, size));
      const check = (e: IndexEntry): Buffer | undefined => {
        if (e.offset + e.length > size) return undefined;
        const stored = readAt(fd, e.offset, e.length);
        return verifyStored(e, stored) ? stored : undefined;
      };
      if (head.equals(PACK_MAGIC)) {
        selfDescribing = true;
        let at = PACK_MAGIC.length;
        complete = true;
        while (at < size) {
          if (at + OBJ_HEADER > size) {
            complete = false;
            break;
          }
          const h = decodeObjectHeader(readAt(fd, at, OBJ_HEADER));
          const e: IndexEntry = { ...h, offset: at + OBJ_HEADER };
          if (e.offset + e.length > size) {
            complete = false;
            break;
          }
          const stored = check(e);
          if (stored) good.push({ entry: e, stored });
          else {
            lost.push(e.hash);
            complete = false;
          }
          at = e.offset + e.length;
        }
      }
      // whatever the old index still lists that the scan did not find (a version 1 pack has only its index)
      if (idxBuf && idxBuf.length >= 12) {
        const declared = Math.min(idxBuf.readUInt32BE(8), Math.floor((idxBuf.length - 12) / 52));
        const found = new Set(good.map((g) => g.entry.hash));
        for (let i = 0; i < declared; i++) {
          const e = entryAt(idxBuf, i);
          if (found.has(e.hash) || !isObjectHash(e.hash)) continue;
          const stored = check(e);
          if (stored) {
            good.push({ entry: e, stored });
            found.add(e.hash);
          } else if (!lost.includes(e.hash)) lost.push(e.hash);
        }
        if (declared < idxBuf.readUInt32BE(8)) complete = false;
      }
    } finally {
      closeSync(fd);
    }
    if (selfDescribing && complete && problem !== 'a read found objects that do not match their hash') {
      // the pack is whole: only its index was lost or damaged
      const idx = encodeIndex(good.map((g) => g.entry));
      await writeDurable(join(this.packDir, `tmp-${pack}.idx`), idx);
      await rename(join(this.packDir, `tmp-${pack}.idx`), join(this.packDir, pack + '.idx'));
      await unlink(join(this.packDir, pack + '.damaged')).catch(() => {});
      this.addPack(pack, { idx, count: good.length, size: (await stat(file)).size });
      return;
    }
    if (good.length > 0) {
      const w = this.newPack();
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

  /** Every place the store keeps `hash` (two writers that did not see each other's packs may both store it). */
  private locations(hash: string): Loc[] {
    const out: Loc[] = [];
    if (!isObjectHash(hash)) return out;
    let key: Buffer | undefined;
    const head = parseInt(hash.slice(0, 8), 16);
    for (const [pack, p] of this.packs) {
      let i: number | undefined;
      if (p.count <= SMALL_PACK) i = this.smallPacks.get(pack)?.get(hash);
      else {
        key ??= Buffer.from(hash, 'hex');
        i = findEntry(p.idx, p.count, key, head);
      }
      if (i !== undefined && i >= 0) {
        const e = entryAt(p.idx, i);
        if (e.offset + e.length <= p.size) out.push({ pack, offset: e.offset, length: e.length, rawSize: e.rawSize, flags: e.flags });
      }
    }
    return out;
  }

  private lookup(hash: string): Loc | undefined {
    if (!isObjectHash(hash) || this.damaged.has(hash)) return undefined;
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

  /** Hashes a read found damaged in every copy: the store answers as if it did not have them (so they are written
   *  afresh), and their packs are marked for repair. */
  private readonly damaged = new Set<string>();
  /** Hashes whose stored copy was read back and verified by this process. */
  private readonly verified = new Set<string>();

  has(hash: string): boolean {
    return this.lookup(hash) !== undefined;
  }

  /**
   * True when a copy of `hash` is stored, of this kind, and reads back with the right content (checked once per
   * process). A damaged copy answers false and is marked, so that what must survive (a pre-restore snapshot) is
   * written afresh instead of deduplicated against it.
   */
  hasVerified(hash: string, kind: ObjectKind): boolean {
    if (this.verified.has(hash)) return true;
    for (const loc of this.locations(hash)) {
      if ((loc.flags & F_TREE ? 'tree' : 'blob') !== kind) continue;
      try {
        if (verifyStored({ hash, ...loc }, this.readRawSync(loc))) {
          this.verified.add(hash);
          return true;
        }
      } catch {
        /* unreadable copy */
      }
      this.noteDamaged(loc.pack, hash);
    }
    this.damaged.add(hash);
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
    let n = 0;
    for (const p of this.packs.values()) n += p.count;
    return n;
  }

  /** Bytes of all live packs and indexes. */
  /** The packs and indexes this store has loaded, in bytes, without touching the disk (sizeOnDisk also counts what
   *  else lies in the folder). */
  knownSize(): number {
    let total = 0;
    for (const p of this.packs.values()) total += p.size + p.idx.length;
    return total;
  }

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

  private handle(pack: string): Promise<FileHandle> {
    let h = this.handles.get(pack);
    if (!h) {
      h = open(join(this.packDir, pack + '.pack'), 'r');
      this.handles.set(pack, h);
      h.catch(() => this.handles.delete(pack));
    }
    return h;
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
        this.damaged.has(hash)
          ? `object ${hash.slice(0, 12)} is damaged (content does not match its hash)`
          : `object ${hash.slice(0, 12)} is missing from the checkpoint store`,
      );
    let error: StoreCorruptError | undefined;
    for (const loc of [first, ...this.locations(hash).filter((l) => l.pack !== first.pack)]) {
      try {
        return await this.readAt(hash, kind, loc);
      } catch (err) {
        if (!(err instanceof StoreCorruptError)) throw err;
        error ??= err;
        if (!/is not a /.test(err.message)) this.noteDamaged(loc.pack, hash);
      }
    }
    this.damaged.add(hash);
    throw error!;
  }

  private async readAt(hash: string, kind: ObjectKind, loc: Loc): Promise<Buffer> {
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
    if (data.length !== loc.rawSize || hashObject(kind, data) !== hash)
      throw new StoreCorruptError(`object ${hash.slice(0, 12)} is damaged (content does not match its hash)`);
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

  /** `verify`: dedupe only against copies that read back intact (blobs in the set, and every tree); see hasVerified. */
  newPack(opts: { verify?: ReadonlySet<string> } = {}): PackWriter {
    return new PackWriter(this, opts.verify);
  }

  /** @internal Called by PackWriter once its pack and index are in place. */
  register(pack: string, idx: Buffer, count: number, size: number): void {
    this.addPack(pack, { idx, count, size });
    // a fresh copy of an object found damaged: the store has it again (reads skip the damaged copy)
    if (this.damaged.size) for (let i = 0; i < count; i++) this.damaged.delete(entryHash(idx, i));
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
    // an object stored twice keeps one copy: the first that reads back intact (or the first, when none does)
    const keeper = new Map<string, string>();
    const copies = new Map<string, number>();
    for (const list of byPack.values()) for (const e of list) copies.set(e.hash, (copies.get(e.hash) ?? 0) + 1);
    for (const [pack, list] of byPack) {
      for (const e of list) {
        if (!live.has(e.hash) || keeper.has(e.hash)) continue;
        if ((copies.get(e.hash) ?? 0) < 2) {
          keeper.set(e.hash, pack);
          continue;
        }
        let ok = false;
        try {
          ok = verifyStored({ hash: e.hash, ...e.loc }, this.readRawSync(e.loc));
        } catch {
          ok = false;
        }
        if (ok) keeper.set(e.hash, pack);
      }
    }
    for (const [pack, list] of byPack) for (const e of list) if (live.has(e.hash) && !keeper.has(e.hash)) keeper.set(e.hash, pack);
    for (const [pack, list] of byPack) {
      const keep = list.filter((e) => keeper.get(e.hash) === pack && live.has(e.hash));
      // one pack listing a hash twice keeps it once
      const inPack = new Set<string>();
      for (let i = keep.length - 1; i >= 0; i--)
        if (inPack.has(keep[i]!.hash)) keep.splice(i, 1);
        else inPack.add(keep[i]!.hash);
      removedObjects += list.length - keep.length;
      if (keep.length === list.length) continue;
      if (keep.length > 0) {
        const w = this.newPack();
        for (const e of keep) await w.addStored(e.hash, await this.readRaw(e.loc), e.loc);
        await w.commit(true); // on the disk before the pack it replaces goes
      }
      await this.dropPack(pack);
    }
    // leftovers of interrupted writes: temp files (a pack whose index never landed is rebuilt by reload's repair)
    for (const name of await readdir(this.packDir)) {
      if (name.startsWith('tmp-')) await unlink(join(this.packDir, name)).catch(() => {});
    }
    await this.reload({ repair: true });
    const after = await this.sizeOnDisk();
    return { removedObjects, freedBytes: Math.max(0, before - after) };
  }

  /**
   * Merges the small packs into one once there are more than `max` of them (stored bytes copied, not recompressed):
   * a snapshot writes a pack, and every fresh process reads every pack's index, so their number must not grow with
   * the number of snapshots. Returns how many packs were merged. The new pack is synced before the old ones go.
   */
  /** Whether consolidateSmallPacks has something to merge. */
  hasTooManySmallPacks(max = MAX_SMALL_PACKS): boolean {
    let small = 0;
    for (const p of this.packs.values()) if (p.count <= SMALL_PACK && ++small > max) return true;
    return false;
  }

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

  constructor(
    private readonly store: ObjectStore,
    /** Blobs whose existing copy must read back intact before it counts (trees always do, when set). */
    private readonly verify?: ReadonlySet<string>,
  ) {}

  /** Whether the store's copy of `hash` can stand in for writing it (see ObjectStore.hasVerified). */
  private stored(hash: string, kind: ObjectKind): boolean {
    if (!this.verify || (kind === 'blob' && !this.verify.has(hash))) return this.store.has(hash);
    return this.store.hasVerified(hash, kind);
  }

  private get tmpPack(): string {
    return join(this.store.packDir, `tmp-${this.name}.pack`);
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
    if (this.verify) return this.verify.has(hash) ? this.store.hasVerified(hash, 'blob') : this.store.has(hash) && !this.store.isTree(hash);
    return this.store.has(hash);
  }

  /** Adds an object unless it is already stored; resolves when it is written to the pack file. */
  add(kind: ObjectKind, hash: string, data: Buffer): Promise<void> {
    if (this.stored(hash, kind)) return Promise.resolve();
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
    if (this.stored(hash, 'blob')) return Promise.resolve();
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
    if (!this.fd) {
      this.fd = open(this.tmpPack, 'wx');
      this.chunk.push(PACK_MAGIC);
      this.chunkBytes += PACK_MAGIC.length;
      this.size = PACK_MAGIC.length;
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

  /** Makes the pack visible (pack, then index, each temp + rename). `durable` fsyncs both first, and the folder after. */
  async commit(durable: boolean): Promise<void> {
    await Promise.all(this.pending.values());
    if (!this.fd) return; // nothing new
    this.flush();
    await Promise.all(this.flushes);
    const fd = await this.fd;
    const idx = encodeIndex(this.entries);
    const dir = this.store.packDir;
    const tmpIdx = join(dir, `tmp-${this.name}.idx`);
    // the pack's fsync and the index's write + fsync at once (a prompt's hook waits for both): neither is visible
    // before both are on disk, as the renames come after
    const pack = (async () => {
      if (durable) await fd.sync();
      await fd.close();
    })();
    const index = (async () => {
      const ih = await open(tmpIdx, 'wx');
      try {
        await ih.writeFile(idx);
        if (durable) await ih.sync();
      } finally {
        await ih.close();
      }
    })();
    for (const r of await Promise.allSettled([pack, index])) if (r.status === 'rejected') throw r.reason;
    await rename(this.tmpPack, join(dir, this.name + '.pack'));
    await rename(tmpIdx, join(dir, this.name + '.idx'));
    if (durable) await syncDir(dir);
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
