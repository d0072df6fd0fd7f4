// How a session is named above the source layer: by a ref its agent's adapter mints and alone understands (a file, a
// folder, a row of a database, a log plus side files). Everything else (the engine, the catalog, the read caches, the
// extension's watcher and tree, the CLI) only keeps refs, compares them and hands them back to the adapter.
//
// For an agent with a file per session (ours, pi's, Claude Code's, Codex's) the ref is the file's absolute path, so
// catalogs, rewind logs, settings and command arguments written before refs existed still name the same sessions.
// Another adapter picks any string it can parse back, e.g. `<database path>#<session id>`; it must be absolute-looking
// (start with `/` or a drive) only if it is a path, and it is never resolved against the current folder by anyone but
// the adapter that minted it.
//
// Whether a session changed is the adapter's to say too (the change signal): `watchFolders` names what to watch (a
// folder and a glob: the session files, the database and its `-wal`, a log and its side folder), `refsOfChange` maps a
// changed path to the sessions it may have changed, and `stamp` gives a cheap version string of one session that
// differs whenever it may have changed (a file's size and mtime; a row's last update time; a log's and its side
// folder's). The catalog and the read caches key a session's reading on ref + stamp, and the watcher refreshes a
// session only when its stamp moved.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';

/** A session as its adapter names it: opaque to everyone else. A file per session: the file's absolute path. */
export type SessionRef = string;

/** A session's version: equal stamps mean nothing of it changed since (undefined: the session is gone). */
export type SessionStamp = string;

/** The stamp of one file: its size and mtime (what the read caches keyed on before refs), undefined when it is not a
 *  regular file. */
export async function fileStamp(path: string): Promise<SessionStamp | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? `${info.size}:${info.mtimeMs}` : undefined;
}

/** The ref of a session file named on a command line or by an older caller: its absolute path. */
export function fileRef(path: string): SessionRef {
  return resolve(path);
}
