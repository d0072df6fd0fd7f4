// Every path the engine writes goes through here: a snapshot, a session or a caller may be hostile, so a relative
// path must stay inside the workspace and never pass through a symlink or a `.git`.
import { lstatSync, mkdirSync } from 'node:fs';
import { lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fsPath, nameByteLength } from './file-names';

export class PathSafetyError extends Error {}

const WINDOWS = process.platform === 'win32';

/**
 * A name that may appear inside a tree object or a relative path: never one that leaves its folder or names a
 * `.git`. On POSIX only `/` and NUL are illegal in a name (a backslash or a colon is an ordinary character); on
 * Windows a backslash is a separator and `c:` a drive, so those are refused there.
 */
export function isSafeName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 255 &&
    name !== '.' &&
    name !== '..' &&
    !name.includes('/') &&
    !name.includes('\0') &&
    name.toLowerCase() !== '.git' &&
    !(WINDOWS && (name.includes('\\') || name.includes(':')))
  );
}

/**
 * A name no tree object may hold on any platform (it leaves its folder or names a `.git`): a tree with one is
 * crafted or damaged and refused whole. Other names a restore cannot create here are only skipped.
 */
export function isHostileName(name: string): boolean {
  return name.length === 0 || name === '.' || name === '..' || name.includes('/') || name.includes('\0') || name.toLowerCase() === '.git';
}

/** A safe name a restore can also create on this platform (NAME_MAX is 255 bytes, not characters; a name that is
 *  not valid UTF-8 counts its own bytes, see file-names.ts). */
export function isStorableName(name: string): boolean {
  return isSafeName(name) && (name.length <= 85 || nameByteLength(name) <= 255);
}

/** Splits a workspace-relative path and rejects anything that could leave the workspace or touch a `.git`. */
/** The folder a workspace-relative path is in ('' for the root). */
export const parentOf = (rel: string): string => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');

export function splitRelPath(rel: string): string[] {
  if (typeof rel !== 'string' || rel.length === 0 || rel.length > 4096) throw new PathSafetyError(`invalid path ${JSON.stringify(rel)}`);
  if (rel.startsWith('/') || (WINDOWS && /^[A-Za-z]:/.test(rel))) throw new PathSafetyError(`absolute path refused: ${rel}`);
  const parts = rel.split('/');
  for (const p of parts) {
    if (!isSafeName(p)) throw new PathSafetyError(`unsafe path refused: ${JSON.stringify(rel)}`);
  }
  return parts;
}

/** Absolute path of `rel` under `root` (already validated). */
export function absPath(root: string, rel: string): string {
  return join(root, ...splitRelPath(rel));
}

/**
 * Checks every parent directory of `rel` with lstat: each must be a real directory (never a symlink, never a file).
 * With `create`, missing parents are made. Returns false when a parent is missing and `create` is off.
 */
export async function ensureSafeParents(root: string, rel: string, create: boolean): Promise<boolean> {
  const parts = splitRelPath(rel);
  let cur = root;
  for (let i = 0; i < parts.length - 1; i++) {
    cur = join(cur, parts[i]!);
    let st;
    try {
      st = await lstat(fsPath(cur));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (!create) return false;
      await mkdir(fsPath(cur));
      continue;
    }
    if (st.isSymbolicLink()) throw new PathSafetyError(`refusing to go through the symlink ${parts.slice(0, i + 1).join('/')}`);
    if (!st.isDirectory()) throw new PathSafetyError(`${parts.slice(0, i + 1).join('/')} is not a folder`);
  }
  return true;
}

/** ensureSafeParents with synchronous calls (restores run many small steps; see Restorer). */
export function ensureSafeParentsSync(root: string, rel: string, create: boolean): boolean {
  const parts = splitRelPath(rel);
  let cur = root;
  for (let i = 0; i < parts.length - 1; i++) {
    cur = join(cur, parts[i]!);
    const st = lstatSync(fsPath(cur), { throwIfNoEntry: false });
    if (!st) {
      if (!create) return false;
      mkdirSync(fsPath(cur));
      continue;
    }
    if (st.isSymbolicLink()) throw new PathSafetyError(`refusing to go through the symlink ${parts.slice(0, i + 1).join('/')}`);
    if (!st.isDirectory()) throw new PathSafetyError(`${parts.slice(0, i + 1).join('/')} is not a folder`);
  }
  return true;
}
