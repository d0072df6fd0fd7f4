// Snapshot writing: puts every object of a scanned tree into a pack (files hashed by a dry run were not written
// yet) and returns the root tree hash.
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { hashObject, type PackWriter } from './object-store';
import { encodeTree, treeEntriesOf, type DirNode } from './tree';
import { readStableFile, unreadableReason } from './safe-read';
import type { SkippedFile } from './types';
import type { Limiter } from './workspace-model';

/** Makes sure every object of the scanned tree `dir` (at `rel`) is in the pack or the store; returns its hash. */
export async function storeTree(workspaceRoot: string, dir: DirNode, rel: string, w: PackWriter, reads: Limiter, skipped: SkippedFile[]): Promise<string> {
  if (dir.hash !== undefined && w.has(dir.hash)) return dir.hash;
  await Promise.all(
    [...dir.children].map(async ([name, n]) => {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (n.kind === 'dir') return void (await storeTree(workspaceRoot, n, childRel, w, reads, skipped));
      if (w.has(n.hash)) return;
      await reads.run(async () => {
        const abs = join(workspaceRoot, childRel);
        let data: Buffer;
        try {
          data = n.kind === 'file' ? readStableFile(abs).data : Buffer.from(await readlink(abs), 'utf8');
        } catch (err) {
          dir.children.delete(name);
          // gone since the scan is no news; anything else (it became a FIFO, it keeps changing) is reported
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') skipped.push({ path: childRel, reason: unreadableReason(err) });
          return;
        }
        const hash = hashObject('blob', data);
        if (hash !== n.hash) Object.assign(n, { hash, size: data.length, racy: true });
        await w.add('blob', hash, data);
      });
    }),
  );
  const data = encodeTree(treeEntriesOf(dir));
  dir.hash = hashObject('tree', data);
  await w.add('tree', dir.hash, data);
  return dir.hash;
}
