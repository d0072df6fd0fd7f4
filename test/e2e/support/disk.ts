// What is really on disk: workspace files and the session file's entries.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Every file under root (relative '/'-separated path → text). */
export function readTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!d.isFile()) continue;
    const abs = join(d.parentPath ?? (d as unknown as { path: string }).path, d.name);
    out[relative(root, abs).split(sep).join('/')] = readFileSync(abs, 'utf8');
  }
  return out;
}

export interface Entry {
  type: string;
  id: string;
  parentId: string | null;
  [key: string]: unknown;
}

/** The entries of a session file (the header and an optional title line are left out). */
export function readEntries(file: string): Entry[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Entry)
    .filter((e) => e.type !== 'session' && e.type !== 'title');
}

/** The ids on the path from the root to the file's last entry: what pi and oh-my-pi take as the active path. */
export function pathOfLastEntry(file: string): string[] {
  const entries = readEntries(file);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const path: string[] = [];
  for (let e = entries.at(-1); e; e = e.parentId ? byId.get(e.parentId) : undefined) path.unshift(e.id);
  return path;
}
