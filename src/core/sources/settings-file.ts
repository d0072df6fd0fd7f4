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
//   rename is not done and the caller's edit is applied again to the file as it is then (editSettingsFiles retries);
//   the file as checked is kept open, and when something was written into it after the check (a program that had
//   opened it before our rename writes into the replaced file), its content is put back and the edit applied again;
//   an empty or unparsable file modified in the last second (another program's write between its truncate and its
//   write) is read again before it is used or refused;
// - several files change together or not at all: all are staged and checked before the first rename, and a rename
//   that fails puts back the files already renamed.
// What remains: a program that opened the file before our rename and writes into it after our last look at the
// replaced file (microseconds after the rename) writes into a file no longer in the folder; and a program that read
// the file before our rename and writes its whole copy after it replaces ours (as it would any other program's
// change: that loses our hooks, not its settings).
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
export const SETTINGS_EDIT_TRIES = 30;

/** Tests only: runs after the new contents are staged and before they are checked and renamed into place, where
 *  another program's write is the race editSettingsFiles must notice. */
export const settingsWriteProbe: {
  beforeCommit?: (staged: { target: string; tmp: string }[]) => void;
  /** Tests only: right after the renames, where a write into the replaced file (opened before) must be noticed. */
  afterCommit?: (staged: { target: string; tmp: string }[]) => void;
} = {};

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

const tooLarge = (named: string) => `${named} is larger than ${MAX_SETTINGS_BYTES / 1024 / 1024} MiB, too large for a settings file; it was left as it is`;

/** Everything in an open file from its start, up to the limit. */
function readAll(fd: number, named: string, fail: SettingsFail): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, total);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
    if (total > MAX_SETTINGS_BYTES) throw fail(tooLarge(named));
  }
  return Buffer.concat(chunks, total);
}

/** The regular file at `path` (never through a link), opened and read (to its end, which may differ from the size
 *  fstat gave while it is being written); undefined when there is none. The caller closes `fd`. */
function openRegular(path: string, named: string, fail: SettingsFail): { fd: number; bytes: Buffer; stat: Stats } | undefined {
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
    if (stat.size > MAX_SETTINGS_BYTES) throw fail(tooLarge(named));
    return { fd, bytes: readAll(fd, named, fail), stat };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function readRegular(path: string, named: string, fail: SettingsFail): { bytes: Buffer; stat: Stats } | undefined {
  const r = openRegular(path, named, fail);
  if (r) closeSync(r.fd);
  return r;
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
  /** The file as checked just before the rename, still open (see checkUnchanged). */
  old?: number;
  /** The temp file's inode. */
  ino: number;
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
  let ino: number;
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
    ino = fstatSync(fd).ino;
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
  return { read, tmp, ino };
}

function close(s: Staged): void {
  if (s.old !== undefined) closeSync(s.old);
  s.old = undefined;
}

function discard(s: Staged): void {
  try {
    unlinkSync(s.tmp);
  } catch {
    /* renamed or gone */
  }
}

/**
 * Whether the file still holds exactly what was read (same bytes, same inode and stat data, or still missing). When
 * it does, the file is left open (`old`), so that after the rename anything written into it meanwhile can be seen:
 * a program that opened it before the rename writes into the replaced file, not ours.
 */
function checkUnchanged(s: Staged, fail: SettingsFail): boolean {
  const now = openRegular(s.read.target, s.read.file, fail);
  if (!now || !s.read.stat) {
    if (now) closeSync(now.fd);
    return !now && !s.read.exists;
  }
  if (sameVersion(s.read.stat, now.stat) && now.bytes.equals(s.read.bytes)) {
    s.old = now.fd;
    return true;
  }
  closeSync(now.fd);
  return false;
}

/**
 * What was written into the replaced file after the check, if anything (and closes it). That write may still be under
 * way: the file is read until two reads 10 ms apart agree and it is not empty (an empty file is most likely a write
 * between its truncate and its data, and a loaded machine can hold a writer there for a while), for up to 500 ms, so
 * that what is put back is the other program's whole write.
 */
function writtenSinceCheck(s: Staged, fail: SettingsFail): Buffer | undefined {
  if (s.old === undefined) return undefined;
  try {
    let bytes = readAll(s.old, s.read.file, fail);
    if (bytes.equals(s.read.bytes)) return undefined;
    for (let waited = 0; waited < 500; waited += 10) {
      pause(10);
      const again = readAll(s.old, s.read.file, fail);
      if (again.equals(bytes) && again.length > 0) break;
      bytes = again;
    }
    return bytes;
  } finally {
    closeSync(s.old);
    s.old = undefined;
  }
}

/** Waits (up to 500 ms) for an empty file modified in the last second to be written: it is most likely another
 *  program's write between its truncate and its data. Whether it changed meanwhile. */
function settled(refs: readonly SettingsFileRef[], reads: SettingsRead[], fail: SettingsFail): boolean {
  for (let waited = 0; waited < 500; waited += 10) {
    pause(10);
    const again = refs.map((r) => readSettingsFile(r, fail));
    if (again.some((r, i) => !r.bytes.equals(reads[i]!.bytes))) return false;
  }
  return true;
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
/** A file modified this recently may be in the middle of another program's write (truncated, half written). */
const RECENT_MS = 1000;
const isRecent = (r: SettingsRead) => r.stat !== undefined && Date.now() - r.stat.mtimeMs < RECENT_MS;

/** Puts back what a committed file held before, or `theirs` (when it still holds what we wrote). */
function rollBack(s: Staged, fail: SettingsFail, theirs?: Buffer): void {
  if (!s.committed) return;
  let now: Stats;
  try {
    now = lstatSync(s.read.target);
  } catch {
    return;
  }
  if (now.ino !== s.committed.ino) return; // someone replaced ours meanwhile: theirs is kept
  if (!s.read.exists && !theirs) {
    unlinkSync(s.read.target);
    return;
  }
  const back = stage(s.read, theirs ?? s.read.bytes, fail);
  renameSync(back.tmp, s.read.target);
}

/**
 * Reads the files, lets `edit` compute each one's new text (undefined: leave it), and writes them all or none. When
 * one changed between its read and the moment of writing, nothing is written and the whole edit starts again from
 * the files as they are then (up to SETTINGS_EDIT_TRIES times). Returns the reads the written texts were computed from and
 * which files were written.
 */
export function editSettingsFiles<R>(
  refs: readonly SettingsFileRef[],
  edit: (reads: SettingsRead[]) => { texts: (string | undefined)[]; result: R },
  fail: SettingsFail,
): { result: R; reads: SettingsRead[]; written: boolean[] } {
  for (let attempt = 0; attempt < SETTINGS_EDIT_TRIES; attempt++) {
    const reads = refs.map((r) => readSettingsFile(r, fail));
    // an empty file just modified may be another program's write between its truncate and its write: looked at again
    if (reads.some((r) => r.exists && r.bytes.length === 0 && isRecent(r)) && !settled(refs, reads, fail)) continue;
    let edited: { texts: (string | undefined)[]; result: R };
    try {
      edited = edit(reads);
    } catch (err) {
      // a file that does not parse while someone is writing it (half written in place) is read again before refusing
      if (attempt < SETTINGS_EDIT_TRIES - 1 && reads.some(isRecent)) {
        pause(20);
        continue;
      }
      throw err;
    }
    const { texts, result } = edited;
    const written = texts.map((t, i) => t !== undefined && t !== reads[i]!.text);
    if (!written.some(Boolean)) return { result, reads, written };
    const staged: Staged[] = [];
    try {
      for (let i = 0; i < reads.length; i++) if (written[i]) staged.push(stage(reads[i]!, texts[i]!, fail));
      settingsWriteProbe.beforeCommit?.(staged.map((st) => ({ target: st.read.target, tmp: st.tmp })));
      // each file is checked right before its own rename, to keep the window between the two as short as it can be
      let conflict = false;
      for (const st of staged) {
        if (!checkUnchanged(st, fail)) {
          conflict = true;
          break;
        }
        renameSync(st.tmp, st.read.target);
        st.committed = { ino: st.ino };
      }
      if (!conflict) settingsWriteProbe.afterCommit?.(staged.map((st) => ({ target: st.read.target, tmp: st.tmp })));
      // a write into a file we have just replaced (opened before the rename) would be lost: theirs is put back
      // instead of ours, the others as they were, and the edit starts again from there
      const late = staged.map((st) => writtenSinceCheck(st, fail));
      if (conflict || late.some(Boolean)) {
        for (let i = staged.length - 1; i >= 0; i--) {
          if (staged[i]!.committed) rollBack(staged[i]!, fail, late[i]);
          else discard(staged[i]!);
        }
        pause(Math.random() * Math.min(2 * attempt + 1, 20)); // out of step with a writer that keeps at it
        continue;
      }
      return { result, reads, written };
    } catch (err) {
      staged.forEach(close);
      for (const st of [...staged].reverse()) {
        if (!st.committed) discard(st);
        else
          try {
            rollBack(st, fail);
          } catch (undo) {
            throw fail(
              `${(err as Error).message}; and ${st.read.file}, already rewritten, could not be put back (${(undo as Error).message}): check it by hand`,
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
