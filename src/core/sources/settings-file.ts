// Reading and rewriting another program's settings file (Claude Code's settings, Codex's hooks.json and config.toml)
// without damaging it or what else writes it:
// - only a regular file is read, opened non-blocking and without following a link, and only up to MAX_SETTINGS_BYTES
//   (a FIFO would block the read forever, /dev/zero would never end);
// - a symlink is refused where the file belongs to a project folder (writing through it would write outside the
//   folder while the message names the path inside); in the user's own folders (dotfiles) it is followed, and the
//   real file is named;
// - the new content goes to a temp file beside the real one with the old file's mode and owner (a root install must
//   not hand someone's file to root), and replaces it by rename, so a reader sees the old file or the new one whole;
// - the file is read again just before the rename: when it changed since it was read (another program wrote it), the
//   rename is not done and the caller reads the new content and applies its edit again (editSettingsFiles retries);
// - several files change together or not at all: all are staged and checked before the first rename, and a rename
//   that fails puts back the files already renamed.
// What remains: a write that lands between the last check and the rename (two system calls apart, microseconds) is
// still replaced, and a program that read the file before our rename and writes its whole copy after it replaces
// ours (as it would any other program's change).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Larger than any settings file a person keeps; a bigger one is refused rather than read into memory. */
export const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/** How often an edit is applied again to a file another program keeps changing before giving up. */
const EDIT_TRIES = 10;

/** Tests only: runs after the new contents are staged and before they are checked and renamed into place, where
 *  another program's write is the race editSettingsFiles must notice. */
export const settingsWriteProbe: { beforeCommit?: (staged: { target: string; tmp: string }[]) => void } = {};

export type SettingsFail = (message: string) => Error;

export interface SettingsFileRef {
  /** The path as the agent names it. */
  file: string;
  /** Follow a symlink at `file` to its target (the user's own folders); else a symlink is refused. */
  followLink: boolean;
}

/** One read of a settings file: what it held and the identity that read had. */
export interface SettingsRead {
  /** The path as named. */
  file: string;
  /** The file actually read and written: `file`, or the target of a followed symlink. */
  target: string;
  exists: boolean;
  text: string;
  bytes: Buffer;
  stat?: Stats;
}

const sameVersion = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

/** The regular file at `path` (never through a link), or undefined when there is none. */
function readRegular(path: string, named: string, fail: SettingsFail): { bytes: Buffer; stat: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw fail(`${named} is a symbolic link; agent-rewind does not write through links here. It was left as it is`);
    throw fail(`cannot read ${named}: ${(err as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw fail(`${named} is not a regular file (a folder, FIFO, socket or device); it was left as it is`);
    if (stat.size > MAX_SETTINGS_BYTES)
      throw fail(`${named} is larger than ${MAX_SETTINGS_BYTES / 1024 / 1024} MiB, too large for a settings file; it was left as it is`);
    // read to the end, which may differ from the size fstat gave (a file being written), up to the limit
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > MAX_SETTINGS_BYTES)
        throw fail(`${named} is larger than ${MAX_SETTINGS_BYTES / 1024 / 1024} MiB, too large for a settings file; it was left as it is`);
    }
    return { bytes: Buffer.concat(chunks, total), stat };
  } finally {
    closeSync(fd);
  }
}

/** The file `ref` names, resolved (a followed link) and read. */
export function readSettingsFile(ref: SettingsFileRef, fail: SettingsFail): SettingsRead {
  let target = ref.file;
  let link: Stats | undefined;
  try {
    link = lstatSync(ref.file);
  } catch {
    link = undefined;
  }
  if (link?.isSymbolicLink()) {
    let to = '';
    try {
      to = readlinkSync(ref.file);
    } catch {
      /* named without its target */
    }
    if (!ref.followLink)
      throw fail(
        `${ref.file} is a symbolic link${to ? ` (to ${to})` : ''}; agent-rewind does not write through links in a project folder. Replace it with the file itself (or install with --user); it was left as it is`,
      );
    try {
      target = realpathSync(ref.file);
    } catch {
      throw fail(`${ref.file} is a symbolic link to ${to || 'a path'} that does not exist; fix or remove the link (it was left as it is)`);
    }
  }
  const read = readRegular(target, target === ref.file ? ref.file : `${ref.file} (a link to ${target})`, fail);
  if (!read) return { file: ref.file, target, exists: false, text: '', bytes: Buffer.alloc(0) };
  return { file: ref.file, target, exists: true, text: read.bytes.toString('utf8'), bytes: read.bytes, stat: read.stat };
}

/** Refuses a folder on the way to a project's settings file that is a symlink (it would lead out of the project). */
export function refuseLinkedFolder(dir: string, fail: SettingsFail): void {
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch {
    return; // created when written
  }
  if (st.isSymbolicLink()) throw fail(`${dir} is a symbolic link; agent-rewind does not write through links in a project folder, so nothing was changed`);
}

interface Staged {
  read: SettingsRead;
  tmp: string;
  /** Set once renamed into place: the inode that now holds our content. */
  committed?: { ino: number };
}

/** Writes `text` to a temp file beside the target with the old file's mode and owner (a new file: the folder's owner). */
function stage(read: SettingsRead, content: string | Buffer, fail: SettingsFail): Staged {
  const dir = dirname(read.target);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(read.target)}.${randomBytes(6).toString('hex')}.agent-rewind.tmp`);
  const mode = read.stat ? read.stat.mode & 0o7777 : 0o644;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    for (let done = 0; done < data.length;) done += writeSync(fd, data, done, data.length - done);
    if (read.stat) fchmodSync(fd, mode); // the umask may have taken bits off
    const owner = read.stat ?? statSync(dir);
    const mine = fstatSync(fd);
    if (owner.uid !== mine.uid || owner.gid !== mine.gid) {
      try {
        fchownSync(fd, owner.uid, owner.gid);
      } catch (err) {
        if (read.stat)
          throw fail(
            `cannot keep the owner of ${read.file} (uid ${owner.uid}) when rewriting it (${(err as NodeJS.ErrnoException).code}); it was left as it is`,
          );
        // a new file in a folder of someone else's: ours, as any file we create
      }
      if (read.stat) fchmodSync(fd, mode); // chown clears set-id bits
    }
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* gone */
    }
    throw err;
  }
  closeSync(fd);
  return { read, tmp };
}

function discard(s: Staged): void {
  try {
    unlinkSync(s.tmp);
  } catch {
    /* renamed or gone */
  }
}

/** Whether the file still holds exactly what was read (same bytes, same inode and stat data, or still missing). */
function unchanged(read: SettingsRead, fail: SettingsFail): boolean {
  const now = readRegular(read.target, read.file, fail);
  if (!now || !read.stat) return !now && !read.exists;
  return sameVersion(read.stat, now.stat) && now.bytes.equals(read.bytes);
}

/** Puts back what a committed file held before (when it still holds what we wrote). */
function rollBack(s: Staged, fail: SettingsFail): void {
  if (!s.committed) return;
  let now: Stats;
  try {
    now = lstatSync(s.read.target);
  } catch {
    return;
  }
  if (now.ino !== s.committed.ino) return; // someone replaced ours meanwhile: theirs is kept
  if (!s.read.exists) {
    unlinkSync(s.read.target);
    return;
  }
  const back = stage(s.read, s.read.bytes, fail);
  renameSync(back.tmp, s.read.target);
}

/**
 * Reads the files, lets `edit` compute each one's new text (undefined: leave it), and writes them all or none. When
 * one changed between its read and the moment of writing, nothing is written and the whole edit starts again from
 * the files as they are then (up to EDIT_TRIES times). Returns the reads the written texts were computed from and
 * which files were written.
 */
export function editSettingsFiles<R>(
  refs: readonly SettingsFileRef[],
  edit: (reads: SettingsRead[]) => { texts: (string | undefined)[]; result: R },
  fail: SettingsFail,
): { result: R; reads: SettingsRead[]; written: boolean[] } {
  for (let attempt = 0; attempt < EDIT_TRIES; attempt++) {
    const reads = refs.map((r) => readSettingsFile(r, fail));
    const { texts, result } = edit(reads);
    const written = texts.map((t, i) => t !== undefined && t !== reads[i]!.text);
    if (!written.some(Boolean)) return { result, reads, written };
    const staged: Staged[] = [];
    try {
      for (let i = 0; i < reads.length; i++) if (written[i]) staged.push(stage(reads[i]!, texts[i]!, fail));
      settingsWriteProbe.beforeCommit?.(staged.map((st) => ({ target: st.read.target, tmp: st.tmp })));
      if (!staged.every((s) => unchanged(s.read, fail))) {
        staged.forEach(discard);
        continue;
      }
      for (const s of staged) {
        const ino = lstatSync(s.tmp).ino;
        renameSync(s.tmp, s.read.target);
        s.committed = { ino };
      }
      return { result, reads, written };
    } catch (err) {
      for (const s of [...staged].reverse()) {
        if (!s.committed) discard(s);
        else
          try {
            rollBack(s, fail);
          } catch (undo) {
            throw fail(
              `${(err as Error).message}; and ${s.read.file}, already rewritten, could not be put back (${(undo as Error).message}): check it by hand`,
            );
          }
      }
      throw err;
    }
  }
  throw fail(
    `${refs.map((r) => r.file).join(' and ')} kept changing while agent-rewind was updating ${refs.length > 1 ? 'them' : 'it'}; nothing was changed, try again`,
  );
}
