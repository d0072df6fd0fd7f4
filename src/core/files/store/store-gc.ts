// Garbage collection of the object store: removes objects no snapshot reaches; then, while the store is over its
// size cap, drops the oldest snapshots (never the newest).
import type { ObjectStore } from './object-store';
import type { SnapshotRecords } from '../snapshot-records';
import { reachableObjects, TreeReader } from './tree-diff';
import type { GcResult } from '../types';

export async function gcStore(store: ObjectStore, records: SnapshotRecords, sizeCap: number): Promise<GcResult> {
  const pruned: { sessionId: string; anchorId: string }[] = [];
  let removedObjects = 0;
  let freedBytes = 0;
  const reader = new TreeReader(store);
  for (;;) {
    const recs = await records.all();
    const live = await reachableObjects(
      reader,
      recs.map((r) => r.root),
    );
    const res = await store.gc(live);
    removedObjects += res.removedObjects;
    freedBytes += res.freedBytes;
    if ((await store.sizeOnDisk()) <= sizeCap || recs.length <= 1) break;
    const oldest = [...recs].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    // drop the oldest tenth (at least one), never the newest snapshot
    const drop = oldest.slice(0, Math.max(1, Math.floor(recs.length / 10))).filter((r) => r !== oldest.at(-1));
    for (const r of drop) {
      await records.delete(r.sessionId, r.anchorId);
      pruned.push({ sessionId: r.sessionId, anchorId: r.anchorId });
    }
  }
  return { removedObjects, freedBytes, prunedSnapshots: pruned };
}
