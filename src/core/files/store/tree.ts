// Folder trees: the in-memory model of a scanned workspace and the tree objects stored for it (like git trees, an
// unchanged folder keeps its hash, so a snapshot writes only the trees on the path to a change).
import { isHostileName, isStorableName } from '../safe-paths';
import { hasEscapedBytes, nameFromBytes, nameToBytes } from '../file-names';
import { hashObject, isObjectHash, type ObjectStore } from './object-store';

export interface FileNode {
  kind: 'file' | 'symlink';
  /** Permission bits (mode & 0o7777). */
  mode: number;
  size: number;
  mtimeMs: number;
  /** Set by the kernel on every change of content or metadata, a utimes() that puts the mtime back included: what
   *  tells an edit that kept size and mtime (cp -p, rsync -t, tar x, touch -r) from an unchanged file, as for git. */
  ctimeMs: number;
  ino: number;
  dev: number;
  /** Blob hash: the file content, or the link target for symlinks. */
  hash: string;
}

/** A file node as the scan keeps it (workspace-model.ts, stat-index.ts). */
export interface FileNodeState extends FileNode {
  /** Changed (mtime or ctime) so close to its scan that it may change again within the same timestamp tick: hashed
   *  again next time. */
  racy?: boolean;
  /** When it was hashed in this process: a racy file is not re-hashed twice in one refresh. */
  hashedAt?: number;
}

export interface DirNode {
  kind: 'dir';
  mode: number;
  children: Map<string, Node>;
  /** Tree hash; undefined while something below changed and it has not been recomputed. */
  hash?: string;
  /** The ignore rules this folder was listed under (see WorkspaceModel). */
  rulesKey?: string;
  /** The folder's mtime when it was listed, if the listing can be trusted while it stays the same. */
  listedMtimeMs?: number;
  /** The folder's ctime and device when it was listed: a listing is trusted only while mtime, ctime, inode, device
   *  and mode are all as they were (tar x puts a folder's mtime back after adding entries; its ctime stays new). */
  listedCtimeMs?: number;
  dirIno?: number;
  dirDev?: number;
  /** Entries left out by ignore rules in this folder (counted again when the listing is reused). */
  ignoredHere?: number;
  /** Every name of the listing that was looked at, skipped files included. */
  listed?: string[];
  /** The subtree's totals when known without expanding it (a folder of a loaded stat index nobody looked into). */
  readonly summary?: TreeTotals;
  /** treeTotals of this folder, kept while its hash is: dropped wherever the hash is (WorkspaceModel.invalidate,
   *  storeTree), so a tracked snapshot adds up only the folders that changed instead of every file. */
  cachedTotals?: TreeTotals;
}

export interface TreeTotals {
  files: number;
  bytes: number;
  /** Entries left out by ignore rules (an ignored folder counts once). */
  ignored: number;
}

/** Files, bytes and ignored entries below `dir`. */
export function treeTotals(dir: DirNode): TreeTotals {
  if (dir.summary) return { ...dir.summary };
  if (dir.cachedTotals && dir.hash !== undefined) return { ...dir.cachedTotals };
  const t: TreeTotals = { files: 0, bytes: 0, ignored: dir.ignoredHere ?? 0 };
  for (const n of dir.children.values()) {
    if (n.kind === 'dir') {
      const s = treeTotals(n);
      t.files += s.files;
      t.bytes += s.bytes;
      t.ignored += s.ignored;
    } else {
      t.files++;
      t.bytes += n.size;
    }
  }
  if (dir.hash !== undefined) dir.cachedTotals = { ...t };
  return t;
}

export type Node = FileNode | DirNode;

export function emptyDir(mode = 0o755): DirNode {
  return { kind: 'dir', mode, children: new Map() };
}

/** The node at a workspace-relative path below `root` ('' is the root), or undefined where the path leaves the tree. */
export function nodeAt(root: DirNode, rel: string): Node | undefined {
  if (rel === '') return root;
  let node: Node | undefined = root;
  for (const p of rel.split('/')) {
    if (!node || node.kind !== 'dir') return undefined;
    node = node.children.get(p);
  }
  return node;
}

/** One entry of a stored tree object. */
export interface TreeEntry {
  name: string;
  kind: 'file' | 'symlink' | 'dir';
  mode: number;
  hash: string;
  size: number;
}

const TYPE = { file: 'f', symlink: 'l', dir: 'd' } as const;
const KIND = { f: 'file', l: 'symlink', d: 'dir' } as const;

/**
 * The flag of an entry whose name is not valid UTF-8: [hex of the name's bytes, type, mode, hash, size, NAME_BYTES].
 * Every other entry keeps the five fields it always had (so trees of such folders hash as before); a version that
 * does not know the flag refuses the tree as invalid rather than restoring a file under another name.
 */
const NAME_BYTES = 'x';
const HEX_NAME = /^(?:[0-9a-f]{2}){1,255}$/;

/** The name of a stored entry: its text, or (flagged) its bytes, which must not be valid UTF-8 (one way to store a
 *  name, so one tree per folder) nor hold a '/' or a NUL. Undefined when it is neither. */
function entryName(e: unknown[]): string | undefined {
  if (e.length === 5) return typeof e[0] === 'string' ? e[0] : undefined;
  if (e[5] !== NAME_BYTES || typeof e[0] !== 'string' || !HEX_NAME.test(e[0])) return undefined;
  const bytes = Buffer.from(e[0], 'hex');
  if (bytes.includes(0x2f) || bytes.includes(0)) return undefined;
  const name = nameFromBytes(bytes);
  return hasEscapedBytes(name) ? name : undefined;
}

/** Why a stored entry ([name, type, mode, hash, size], or flagged, see NAME_BYTES) is invalid, or undefined. Checked
 *  by hand rather than with a schema: a restore decodes every tree on the path to 1,000 files, and the schema cost
 *  more than the rest of it. */
function entryProblem(e: unknown): string | undefined {
  if (!Array.isArray(e) || (e.length !== 5 && e.length !== 6)) return 'bad shape';
  const [, t, mode, hash, size] = e as unknown[];
  const name = entryName(e as unknown[]);
  if (name === undefined || isHostileName(name)) return 'unsafe name';
  if (t !== 'f' && t !== 'l' && t !== 'd') return 'bad kind';
  if (typeof mode !== 'number' || !Number.isInteger(mode) || mode < 0 || mode > 0o7777) return 'bad mode';
  if (!isObjectHash(hash)) return 'bad hash';
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) return 'bad size';
  return undefined;
}

export function encodeTree(entries: TreeEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return Buffer.from(
    JSON.stringify(
      sorted.map((e) =>
        hasEscapedBytes(e.name)
          ? [nameToBytes(e.name).toString('hex'), TYPE[e.kind], e.mode, e.hash, e.size, NAME_BYTES]
          : [e.name, TYPE[e.kind], e.mode, e.hash, e.size],
      ),
    ),
  );
}

/**
 * Parses and validates a tree object: names must be safe and unique, so no crafted tree can point outside. A name
 * that is harmless but cannot be created on this platform (made elsewhere, or by an older version) is left out of
 * the entries and listed in `unrestorable`, so a rewind skips and reports it instead of failing on it.
 */
export function decodeTree(data: Buffer): TreeEntry[] {
  return decodeTreeChecked(data).entries;
}

export function decodeTreeChecked(data: Buffer): { entries: TreeEntry[]; unrestorable: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(data.toString('utf8'));
  } catch {
    throw new Error('tree object is not valid JSON');
  }
  if (!Array.isArray(json)) throw new Error('tree object is invalid: bad shape');
  const names = new Set<string>();
  const out: TreeEntry[] = [];
  const unrestorable: string[] = [];
  for (let i = 0; i < json.length; i++) {
    const e = json[i] as unknown;
    const problem = entryProblem(e);
    if (problem) throw new Error(`tree object is invalid: ${problem}`);
    const [, t, mode, hash, size] = e as [string, 'f' | 'l' | 'd', number, string, number];
    const name = entryName(e as unknown[])!;
    if (names.has(name)) throw new Error(`tree object lists ${name} twice`);
    names.add(name);
    if (!isStorableName(name)) unrestorable.push(name);
    else out.push({ name, kind: KIND[t], mode, hash, size });
  }
  return { entries: out, unrestorable };
}

export function treeEntriesOf(dir: DirNode): TreeEntry[] {
  const out: TreeEntry[] = [];
  for (const [name, n] of dir.children) {
    if (n.kind === 'dir') out.push({ name, kind: 'dir', mode: n.mode, hash: n.hash!, size: 0 });
    else out.push({ name, kind: n.kind, mode: n.mode, hash: n.hash, size: n.size });
  }
  return out;
}

/**
 * The encoding hashTrees hashed, by folder, for storeTree to write instead of encoding the folder a second time (a
 * tracked snapshot re-encodes a few dozen folders of hundreds of entries). Good only while the folder's hash is the
 * one it was made for: any change below a folder forgets that hash. Taken by takeEncodedTree, the rest dropped when
 * storeTree is done (forgetEncodedTrees).
 */
let encodedTrees = new WeakMap<DirNode, { hash: string; data: Buffer }>();
/** Bytes kept there: a whole tree hashed at once (a first scan, a loaded stat index) keeps no more than this. */
let encodedBytes = 0;
const MAX_ENCODED_BYTES = 4 * 1024 * 1024;

/** Computes the tree hashes that are missing (folders below which something changed), bottom-up. */
export function hashTrees(dir: DirNode): string {
  if (dir.hash !== undefined) return dir.hash;
  for (const child of dir.children.values()) if (child.kind === 'dir' && child.hash === undefined) hashTrees(child);
  const data = encodeTree(treeEntriesOf(dir));
  dir.hash = hashObject('tree', data);
  if (encodedBytes + data.length <= MAX_ENCODED_BYTES) {
    encodedBytes += data.length;
    encodedTrees.set(dir, { hash: dir.hash, data });
  }
  return dir.hash;
}

/** The encoding of `dir` hashTrees made for its current hash, if it still is current; forgotten either way. */
export function takeEncodedTree(dir: DirNode): Buffer | undefined {
  const e = encodedTrees.get(dir);
  if (!e) return undefined;
  encodedTrees.delete(dir);
  return e.hash === dir.hash ? e.data : undefined;
}

/** Drops every encoding kept (a snapshot's storeTree is done; what it did not take was already stored). */
export function forgetEncodedTrees(): void {
  encodedTrees = new WeakMap();
  encodedBytes = 0;
}

/** Reads a whole stored tree into memory (used for the anchor side of a diff, lazily per folder). */
export async function readTree(store: ObjectStore, hash: string): Promise<TreeEntry[]> {
  return decodeTree(await store.read(hash, 'tree'));
}

/** readTree, with the names left out because they cannot be created here. */
export async function readTreeChecked(store: ObjectStore, hash: string): Promise<{ entries: TreeEntry[]; unrestorable: string[] }> {
  return decodeTreeChecked(await store.read(hash, 'tree'));
}
