// Writes every object of a scanned tree that the store does not have yet (things hashed by a dry run were not
// written). Iterative, children before parents: folder nesting is as deep as the workspace makes it, and one stack
// frame per level (or an async call chain per level) overflows on deep trees.
import { readFileSync } from 'node:fs';
import { readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { hashObject, type PackWriter } from './object-store';
import { encodeTree, treeEntriesOf, type DirNode } from './tree';
import type { Limiter } from './workspace-model';

export async function storeScannedTree(workspaceRoot: string, top: DirNode, topRel: string, w: PackWriter, reads: Limiter): Promise<string> {
  if (top.hash !== undefined && w.has(top.hash)) return top.hash;
  // folders to write, parents before children (a folder the store already has is skipped with all it holds)
  const order: { dir: DirNode; rel: string }[] = [];
  const stack = [{ dir: top, rel: topRel }];
  for (let cur = stack.pop(); cur; cur = stack.pop()) {
    order.push(cur);
    for (const [name, n] of cur.dir.children) {
      if (n.kind !== 'dir' || (n.hash !== undefined && w.has(n.hash))) continue;
      stack.push({ dir: n, rel: cur.rel === '' ? name : `${cur.rel}/${name}` });
    }
  }
  const jobs: Promise<void>[] = [];
  for (const { dir, rel } of order) {
    for (const [name, n] of dir.children) {
      if (n.kind === 'dir' || w.has(n.hash)) continue;
      const childRel = rel === '' ? name : `${rel}/${name}`;
      jobs.push(
        reads.run(async () => {
          const abs = join(workspaceRoot, childRel);
          let data: Buffer;
          try {
            data = n.kind === 'file' ? (n.size > 8 * 1024 * 1024 ? await readFile(abs) : readFileSync(abs)) : Buffer.from(await readlink(abs), 'utf8');
          } catch {
            dir.children.delete(name); // gone since the scan
            return;
          }
          const hash = hashObject('blob', data);
          if (hash !== n.hash) Object.assign(n, { hash, size: data.length, racy: true });
          await w.add('blob', hash, data);
        }),
      );
    }
  }
  await Promise.all(jobs);
  // children before parents: a folder's tree names its subfolders' hashes
  for (let i = order.length - 1; i >= 0; i--) {
    const { dir } = order[i]!;
    const data = encodeTree(treeEntriesOf(dir));
    dir.hash = hashObject('tree', data);
    await w.add('tree', dir.hash, data);
  }
  return top.hash!;
}
