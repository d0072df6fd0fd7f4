// The service's folder and the per-user secret every request must present. The folder is 0700 and the secret
// 0600, both checked to be owned by this user (a folder or file someone else made, or a symlink, is refused):
// whoever can read the secret can already read everything under the home.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync, constants } from 'node:fs';
import { secretPath, serviceDir } from './paths';

const uid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** Makes <home>/service (0700) and checks it is ours and a real folder. */
export function ensureServiceDir(home: string): string {
  const dir = serviceDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder (a symlink?); the checkpoint service will not use it`);
  const me = uid();
  if (me !== undefined && st.uid !== me) throw new Error(`${dir} belongs to another user (uid ${st.uid}); the checkpoint service will not use it`);
  if (process.platform !== 'win32' && (st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  return dir;
}

/** The secret, made on first use (32 random bytes, hex) with mode 0600. */
export function ensureSecret(home: string): string {
  ensureServiceDir(home);
  const file = secretPath(home);
  if (!existsSync(file)) {
    // written whole under a name of its own and linked into place: two first starts at once (two `serve`, a hook)
    // made it with O_EXCL and wrote it after, so the second could read it empty and refuse to start
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      writeSync(fd, randomBytes(32).toString('hex'));
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(temp);
    }
  }
  const secret = readSecret(home);
  if (!secret) throw new Error(`cannot read the checkpoint service secret ${file}`);
  if (process.platform !== 'win32' && (lstatSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  return secret;
}

/** The secret when it exists, is a regular file of ours and looks like one; else undefined (no service then). */
export function readSecret(home: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(secretPath(home), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    const me = uid();
    if (!st.isFile() || st.size > 256 || (me !== undefined && st.uid !== me)) return undefined;
    const text = readFileSync(fd, 'utf8').trim();
    return /^[0-9a-f]{64}$/.test(text) ? text : undefined;
  } finally {
    closeSync(fd);
  }
}

export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
