// A snapshot made from another tool's checkpoint (Claude Code's own file history): the workspace as it is now, with
// the files that tool tracked put back to what it saved for them. Stored as ordinary tree objects, so a rewind to it
// is the same preview, user-edit protection, journal and undo as to any snapshot of ours; only the files that tool
// tracked differ from now, so nothing else is touched.
import { hashObject, type ObjectStore, type PackWriter } from './store/object-store';
import { readStableFile } from './safe-read';
import { isStorableName } from './safe-paths';
import { encodeTree, readTree, type TreeEntry } from './store/tree';
import type { ImportedFile, SkippedFile } from './types';

const MAX_DEPTH = 1024;

interface Folder {
  files: Map<string, Buffer | null>;
  folders: Map<string, Folder>;
}

/**
 * A new root tree: `baseRoot` with each imported file set to its saved bytes (mode kept when the file exists now,
 * else 0644) or removed. Paths that cannot be placed (a file where a folder would be, unsafe names) are reported.
 */
export async function overlayTree(
  store: ObjectStore,
  w: PackWriter,
  baseRoot: string,
  files: readonly ImportedFile[],
  skipped: SkippedFile[],
): Promise<string> {
  const top: Folder = { files: new Map(), folders: new Map() };
  for (const f of files) {
    const parts = f.path.split('/');
    if (parts.length > MAX_DEPTH || parts.some((p) => !p || p === '.' || p === '..' || !isStorableName(p))) {
      skipped.push({ path: f.path, reason: 'cannot be restored from the saved copy (unsafe or unusable name)' });
      continue;
    }
    let data: Buffer | null = null;
    if (f.source !== null) {
      try {
        // the agent's saved copy: a regular file, opened without blocking and not through a symlink
        data = readStableFile(f.source).data;
      } catch (err) {
        skipped.push({ path: f.path, reason: `the saved copy cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
        continue;
      }
    }
    let at = top;
    for (const p of parts.slice(0, -1)) {
      let next = at.folders.get(p);
      if (!next) at.folders.set(p, (next = { files: new Map(), folders: new Map() }));
      at = next;
    }
    at.files.set(parts.at(-1)!, data);
  }
  return (await rewrite(store, w, baseRoot, top, '', skipped)) ?? (await putTree(w, []));
}

/** The folder `hash` (undefined: absent now) with the changes under it; undefined when it ends up absent and empty. */
async function rewrite(
  store: ObjectStore,
  w: PackWriter,
  hash: string | undefined,
  changes: Folder,
  rel: string,
  skipped: SkippedFile[],
): Promise<string | undefined> {
  const entries = new Map<string, TreeEntry>((hash ? await readTree(store, hash) : []).map((e) => [e.name, e]));
  for (const [name, data] of changes.files) {
    const path = rel ? `${rel}/${name}` : name;
    const now = entries.get(name);
    if (now?.kind === 'dir') {
      skipped.push({ path, reason: 'a folder is there now; the saved file is left out' });
      continue;
    }
    if (data === null) {
      entries.delete(name);
      continue;
    }
    const blob = hashObject('blob', data);
    if (!w.has(blob) && !store.has(blob)) await w.add('blob', blob, data);
    entries.set(name, { name, kind: 'file', mode: now?.kind === 'file' ? now.mode : 0o644, hash: blob, size: data.length });
  }
  for (const [name, sub] of changes.folders) {
    const path = rel ? `${rel}/${name}` : name;
    const now = entries.get(name);
    if (now && now.kind !== 'dir') {
      skipped.push({ path, reason: 'a file is there now where the saved files had a folder; left out' });
      continue;
    }
    const child = await rewrite(store, w, now?.hash, sub, path, skipped);
    if (child === undefined) entries.delete(name);
    else entries.set(name, { name, kind: 'dir', mode: now?.mode ?? 0o755, hash: child, size: 0 });
  }
  if (entries.size === 0 && hash === undefined) return undefined;
  return putTree(w, [...entries.values()]);
}

async function putTree(w: PackWriter, entries: TreeEntry[]): Promise<string> {
  const data = encodeTree(entries);
  const hash = hashObject('tree', data);
  if (!w.has(hash)) await w.add('tree', hash, data);
  return hash;
}
