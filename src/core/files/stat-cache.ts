// The last scan's stat data and hashes, persisted so a fresh process (the CLI) re-hashes only files whose stat
// data changed. Only an optimisation: anything odd in it and we start from an empty cache.
import { readFile } from 'node:fs/promises';
import { isSafeName } from './safe-paths';
import { writeFileAtomic } from './atomic-write';
import type { DirNode, Node } from './tree';
import type { FileNodeState } from './workspace-model';

const VERSION = 3;
/** A cheap shape check: a wrong hash is harmless here (it is not in the store, so the file is read again). */
const isHashLike = (h: unknown): h is string => typeof h === 'string' && h.length === 64;
/** Files flat, 8 slots each: name, kind ('f' | 'l'), mode, size, mtimeMs, ino, hash, racy (0 | 1). Flat arrays parse
 *  and allocate much less than an object per file, which matters at 50,000 files per CLI call. */
const SLOTS = 8;
interface SDir {
  m: number;
  h?: string;
  r?: string;
  t?: number;
  i?: number;
  x?: number;
  o?: string[];
  f: (string | number)[];
  d: Record<string, SDir>;
}

function toJson(dir: DirNode): SDir {
  const f: (string | number)[] = [];
  const d: Record<string, SDir> = {};
  for (const [name, n] of dir.children) {
    if (n.kind === 'dir') d[name] = toJson(n);
    else f.push(name, n.kind === 'file' ? 'f' : 'l', n.mode, n.size, n.mtimeMs, n.ino, n.hash, (n as FileNodeState).racy ? 1 : 0);
  }
  const out: SDir = { m: dir.mode, f, d };
  if (dir.hash) out.h = dir.hash;
  if (dir.rulesKey !== undefined) out.r = dir.rulesKey;
  if (dir.listedMtimeMs !== undefined) out.t = dir.listedMtimeMs;
  if (dir.dirIno !== undefined) out.i = dir.dirIno;
  if (dir.ignoredHere) out.x = dir.ignoredHere;
  if (dir.listed) {
    const extra = dir.listed.filter((n) => !dir.children.has(n));
    if (extra.length) out.o = extra;
  }
  return out;
}

function fromJson(s: SDir): DirNode {
  if (typeof s !== 'object' || s === null || typeof s.m !== 'number' || !Array.isArray(s.f) || s.f.length % SLOTS !== 0 || typeof s.d !== 'object') throw new Error('bad dir');
  if (s.h !== undefined && !isHashLike(s.h)) throw new Error('bad hash');
  const children = new Map<string, Node>();
  const f = s.f;
  for (let i = 0; i < f.length; i += SLOTS) {
    const name = f[i];
    const k = f[i + 1];
    const mode = f[i + 2];
    const size = f[i + 3];
    const mtimeMs = f[i + 4];
    const ino = f[i + 5];
    const hash = f[i + 6];
    if (typeof name !== 'string' || !isSafeName(name) || (k !== 'f' && k !== 'l') || !isHashLike(hash)) throw new Error('bad file');
    if (typeof mode !== 'number' || typeof size !== 'number' || typeof mtimeMs !== 'number' || typeof ino !== 'number') throw new Error('bad file');
    const node: FileNodeState = { kind: k === 'f' ? 'file' : 'symlink', mode, size, mtimeMs, ino, hash };
    if (f[i + 7]) node.racy = true;
    children.set(name, node);
  }
  for (const [name, v] of Object.entries(s.d)) {
    if (!isSafeName(name)) throw new Error('bad name');
    children.set(name, fromJson(v));
  }
  const num = (x: unknown) => (typeof x === 'number' ? x : undefined);
  const extra = Array.isArray(s.o) ? s.o.filter((n): n is string => typeof n === 'string' && isSafeName(n)) : [];
  // without a listing of its own the folder is simply listed again next time
  const listed = s.t !== undefined ? [...children.keys(), ...extra] : undefined;
  return { kind: 'dir', mode: s.m, children, hash: s.h, rulesKey: typeof s.r === 'string' ? s.r : undefined, listedMtimeMs: num(s.t), dirIno: num(s.i), ignoredHere: num(s.x), listed };
}

export interface LoadedStatCache {
  root: DirNode;
  /** The file's text, so a save that would write the same bytes can be skipped. */
  text: string;
}

export async function loadStatCache(file: string, key: string): Promise<LoadedStatCache | undefined> {
  try {
    const text = await readFile(file, 'utf8');
    const json = JSON.parse(text) as { v: number; key: string; root: SDir };
    if (json.v !== VERSION || json.key !== key) return undefined;
    return { root: fromJson(json.root), text };
  } catch {
    return undefined;
  }
}

/** Writes the cache unless it would be exactly `previous` (the text last loaded or saved); returns the text. A
 *  snapshot with nothing changed then costs no 6 MB write on a 50,000-file tree. */
export async function saveStatCache(file: string, key: string, root: DirNode, previous?: string): Promise<string> {
  const text = JSON.stringify({ v: VERSION, key, root: toJson(root) });
  if (text !== previous) await writeFileAtomic(file, text);
  return text;
}
