// Snapshot writing: puts every object of a scanned tree into a pack (files hashed by a dry run were not written
// yet) and returns the root tree hash. Iterative, children before parents: folder nesting is as deep as the
// workspace makes it, and one stack frame (or async call chain) per level overflows on deep trees.
import { readlink } from 'node:fs/promises';
import { fsPath } from '../file-names';
import { join } from 'node:path';
import { hashObject } from '../store/object-format';
import type { PackWriter } from '../store/pack-writer';
import type { TreeCache } from '../store/tree-cache';
import { encodeTree, forgetEncodedTrees, takeEncodedTree, treeEntriesOf, type DirNode } from '../store/tree';
import { readKnownFile, unchangedSince, unreadableReason } from '../safe-read';
import type { SkippedFile } from '../types';
import type { Limiter } from './workspace-model';

/** Folder trees past which a snapshot keeps none of those it writes (see storeTree's `written`). */
const MAX_KEPT_TREES = 4096;

/**
 * Makes sure every object of the scanned tree `top` (at `topRel`) is in the pack or the store; returns its hash.
 * `written`, when given, keeps each folder tree this writes (or finds stored on the way), decoded (tree-cache.ts).
 * `current`: bytes the model's refresh read of files, by hash (a rewind's plan: Plan.current), stored for a file whose
 * stat data on disk is still the model's instead of reading it again.
 */
export async function storeTree(
  workspaceRoot: string,
  top: DirNode,
  topRel: string,
  w: PackWriter,
  reads: Limiter,
  skipped: SkippedFile[],
  written?: TreeCache,
  current?: ReadonlyMap<string, Buffer>,
): Promise<string> {
  if (top.hash !== undefined && w.hasFolder(top.hash, topRel)) return top.hash;
  // folders to write, parents before children (a folder the store already has is skipped with all it holds)
  const order: { dir: DirNode; rel: string; parent?: DirNode }[] = [];
  const stack: { dir: DirNode; rel: string; parent?: DirNode }[] = [{ dir: top, rel: topRel }];
  for (let cur = stack.pop(); cur; cur = stack.pop()) {
    order.push(cur);
    for (const [name, n] of cur.dir.children) {
      if (n.kind !== 'dir') continue;
      const rel = cur.rel === '' ? name : `${cur.rel}/${name}`;
      if (n.hash !== undefined && w.hasFolder(n.hash, rel)) continue;
      stack.push({ dir: n, rel, parent: cur.dir });
    }
  }
  // a snapshot that writes the trees of a whole workspace (a first one) keeps none: they would only push each other out
  const keep = order.length <= MAX_KEPT_TREES ? written : undefined;
  /** Folders whose entries changed while their files were read here: their encoding from hashTrees is stale. */
  const changed = new Set<DirNode>();
  const jobs: Promise<void>[] = [];
  for (const { dir, rel } of order) {
    for (const [name, n] of dir.children) {
      if (n.kind === 'dir' || w.hasFile(n)) continue;
      const childRel = rel === '' ? name : `${rel}/${name}`;
      jobs.push(
        reads.run(async () => {
          const abs = join(workspaceRoot, childRel);
          let data: Buffer;
          let hash: string;
          try {
            // the model hashed this file moments ago (a pre-restore snapshot: the preview did): that read is the
            // first of the two a recently edited file needs
            const read = n.kind === 'file' ? current?.get(n.hash) : undefined;
            if (read && unchangedSince(abs, n)) ({ data, hash } = { data: read, hash: n.hash });
            else if (n.kind === 'file') ({ data, hash } = readKnownFile(abs, n, (d) => hashObject('blob', d)));
            else hash = hashObject('blob', (data = await readlink(fsPath(abs), { encoding: 'buffer' })));
          } catch (err) {
            dir.children.delete(name);
            changed.add(dir);
            // gone since the scan is no news; anything else (it became a FIFO, it keeps changing) is reported
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') skipped.push({ path: childRel, reason: unreadableReason(err) });
            return;
          }
          if (hash !== n.hash) {
            Object.assign(n, { hash, size: data.length, racy: true });
            changed.add(dir);
          }
          await w.add('blob', hash, data);
          w.noteFile(n);
        }),
      );
    }
  }
  await Promise.all(jobs);
  // children before parents: a folder's tree names its subfolders' hashes
  for (let i = order.length - 1; i >= 0; i--) {
    const { dir, parent } = order[i]!;
    const before = dir.hash;
    const cached = changed.has(dir) ? undefined : takeEncodedTree(dir);
    const entries = cached && !keep ? undefined : treeEntriesOf(dir);
    const data = cached ?? encodeTree(entries!);
    dir.cachedTotals = undefined; // a file that went away or grew while being read changed this folder's totals
    if (!cached) dir.hash = hashObject('tree', data);
    if (dir.hash !== before && parent) changed.add(parent); // its entry for this folder names another hash now
    await w.add('tree', dir.hash!, data);
    // kept as the entries the written bytes encode (hashTrees's encoding is checked: a few µs a folder)
    if (keep && (!cached || cached.equals(encodeTree(entries!)))) keep.setEntries(dir.hash!, entries!);
  }
  forgetEncodedTrees();
  return top.hash!;
}
