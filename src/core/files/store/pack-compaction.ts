// Rewriting packs: gc keeps only live objects, and small packs (one per snapshot) are merged so that the number of
// indexes a fresh process reads does not grow with the number of snapshots. Stored bytes are copied, never
// recompressed, and every new pack is synced before a pack it replaces goes.
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { F_DICT, F_DICTIONARY, StoreCorruptError, verifyStored } from './object-format';
import { entryHash } from './pack-index';
import type { PackReaders } from './pack-readers';
import { isCompacted, type Loc, type PackTable } from './pack-table';
import type { PackKind, PackWriter } from './pack-writer';

/** What rewriting packs needs of the store (ObjectStore): a structural type, so that the store can call it. */
export interface PackSet {
  readonly table: PackTable;
  readonly readers: PackReaders;
  readonly packDir: string;
  dictionaryOf(pack: string): Buffer | undefined;
  newPack(opts?: { kind?: PackKind }): PackWriter;
  dropPack(pack: string): Promise<void>;
  reload(opts?: { repair?: boolean }): Promise<void>;
  sizeOnDisk(): Promise<number>;
}

/** More small packs than this and the next snapshot merges them. */
export const MAX_SMALL_PACKS = 32;

/**
 * Keeps only the objects in `live`: packs with nothing live are deleted, packs partly live are rewritten. Temp files
 * and packs without an index are removed too.
 */
export async function gcPacks(store: PackSet, live: Set<string>): Promise<{ removedObjects: number; freedBytes: number }> {
  const before = await store.sizeOnDisk();
  const byPack = new Map<string, { hash: string; loc: Loc }[]>();
  for (const { hash, loc } of store.table.entries()) {
    // a compacted pack's dictionary is not an object: it goes with the pack, or into its rewrite (PackWriter)
    if (loc.flags & F_DICTIONARY) continue;
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
        ok = verifyStored({ hash: e.hash, ...e.loc }, store.readers.readSync(e.loc), e.loc.flags & F_DICT ? store.dictionaryOf(pack) : undefined);
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
      // a compacted pack's objects stay with the dictionary they were compressed with
      const w = store.newPack(isCompacted(pack) ? { kind: { compacted: true, dictionary: store.dictionaryOf(pack) } } : {});
      for (const e of keep) await w.addStored(e.hash, await store.readers.read(e.loc), e.loc);
      await w.commit(true); // on the disk before the pack it replaces goes
    }
    await store.dropPack(pack);
  }
  // leftovers of interrupted writes: temp files (a pack whose index never landed is rebuilt by reload's repair)
  for (const name of await readdir(store.packDir)) {
    if (name.startsWith('tmp-')) await unlink(join(store.packDir, name)).catch(() => {});
  }
  await store.reload({ repair: true });
  const after = await store.sizeOnDisk();
  return { removedObjects, freedBytes: Math.max(0, before - after) };
}

/** Merges the small packs into one once there are more than `max` of them. Returns how many packs were merged. */
export async function mergeSmallPacks(store: PackSet, max = MAX_SMALL_PACKS): Promise<number> {
  const small = store.table.small();
  if (small.length <= max) return 0;
  const w = store.newPack();
  for (const [pack, p] of small) {
    const data = await readFile(join(store.packDir, pack + '.pack'));
    for (let i = 0; i < p.count; i++) {
      const loc = store.table.locAt(pack, p, i);
      if (loc.offset + loc.length > data.length) throw new StoreCorruptError(`pack ${pack} is truncated`);
      await w.addStored(entryHash(p.idx, i), data.subarray(loc.offset, loc.offset + loc.length), loc);
    }
  }
  await w.commit(true);
  for (const [pack] of small) await store.dropPack(pack);
  return small.length;
}
