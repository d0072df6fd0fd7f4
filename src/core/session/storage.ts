// Every filesystem operation the session store performs goes through SessionStorage, so the same SessionManager
// runs on the real disk (FileSessionStorage) or on a map (MemorySessionStorage, for tests and in-memory sessions).
// a session file is read only when it is a regular file, opened without blocking (a FIFO named *.jsonl would hang)
import { openRegularFile, readRegularFile } from '../agent-files';
import { SerialQueue } from '../serial-queue';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface StorageStat {
  size: number;
  mtimeMs: number;
  birthtimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
}

/** An append-only line writer. Errors are kept (getError) and rethrown by flush/fsync/close. */
export interface SessionStorageWriter {
  /** Queues `line + "\n"` as one write. Resolves when the OS has the bytes (not necessarily the disk). */
  writeLine(line: string): Promise<void>;
  /** Queues raw text (used to terminate a torn last line before appending). */
  writeRaw(text: string): Promise<void>;
  /** Waits until every queued write reached the OS. */
  flush(): Promise<void>;
  /** flush() and then make the bytes durable. */
  fsync(): Promise<void>;
  close(): Promise<void>;
  getError(): Error | undefined;
}

export interface SessionStorage {
  ensureDirSync(dir: string): void;
  existsSync(path: string): boolean;
  writeTextSync(path: string, text: string): void;
  statSync(path: string): StorageStat | undefined;
  /** Names (not paths) of the regular files directly inside dir; [] when dir is missing. Symlinks are not followed. */
  listFilesSync(dir: string): string[];
  /** Names of the subdirectories directly inside dir; [] when missing. Symlinks are not followed. */
  listDirsSync(dir: string): string[];

  exists(path: string): Promise<boolean>;
  stat(path: string): Promise<StorageStat | undefined>;
  readText(path: string): Promise<string>;
  /** The first maxBytes bytes decoded as UTF-8 (a split character at the end is dropped). */
  readTextPrefix(path: string, maxBytes: number): Promise<string>;
  /** Bytes from `start` to the end of the file. */
  readBytesFrom(path: string, start: number): Promise<Buffer>;
  writeText(path: string, text: string): Promise<void>;
  /** Temp file in the same folder, write, fsync, close, rename over path, fsync the folder. */
  writeTextAtomic(path: string, text: string | Buffer): Promise<void>;
  copyFile(from: string, to: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  openWriter(path: string): Promise<SessionStorageWriter>;
  /** How many "\n" bytes the file holds, read in chunks (never the whole file in memory). */
  countNewlines(path: string): Promise<number>;
  /** Whether the storage is a real filesystem another process can see (enables the cross-process lock). */
  readonly shared: boolean;
}

function toStat(s: fs.Stats): StorageStat {
  return { size: s.size, mtimeMs: s.mtimeMs, birthtimeMs: s.birthtimeMs, isFile: s.isFile(), isDirectory: s.isDirectory() };
}

/** Names in dir whose entry passes `keep` (a Dirent: symlinks are not followed); [] when dir is missing. */
function namesIn(dir: string, keep: (d: fs.Dirent) => boolean): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter(keep)
      .map((d) => d.name);
  } catch (err) {
    if (isNotFound(err) || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw err;
  }
}

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ENOENT';
}

let tempCounter = 0;
function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.${tempCounter++}.tmp`);
}

class FileWriter implements SessionStorageWriter {
  readonly #queue = new SerialQueue();
  #error: Error | undefined;
  #closed = false;
  constructor(private readonly fh: fsp.FileHandle) {}

  #enqueue(op: () => Promise<void>): Promise<void> {
    // the queue goes on after a failure; the error is latched in #error and fails every later write
    return this.#queue.run(async () => {
      if (this.#error) throw this.#error;
      if (this.#closed) throw new Error('session writer is closed');
      try {
        await op();
      } catch (err) {
        this.#error ??= err as Error;
        throw err;
      }
    });
  }
  writeLine(line: string): Promise<void> {
    return this.writeRaw(line + '\n');
  }
  writeRaw(text: string): Promise<void> {
    const buf = Buffer.from(text, 'utf8');
    return this.#enqueue(async () => {
      let off = 0;
      while (off < buf.length) off += (await this.fh.write(buf, off, buf.length - off)).bytesWritten;
    });
  }
  async flush(): Promise<void> {
    await this.#queue;
    if (this.#error) throw this.#error;
  }
  async fsync(): Promise<void> {
    await this.flush();
    try {
      await this.fh.sync();
    } catch (err) {
      this.#error ??= err as Error;
      throw err;
    }
  }
  async close(): Promise<void> {
    await this.#queue;
    if (!this.#closed) {
      this.#closed = true;
      try {
        await this.fh.close();
      } catch (err) {
        this.#error ??= err as Error;
      }
    }
    if (this.#error) throw this.#error;
  }
  getError(): Error | undefined {
    return this.#error;
  }
}

export class FileSessionStorage implements SessionStorage {
  readonly shared = true;
  ensureDirSync(dir: string): void {
    fs.mkdirSync(dir, { recursive: true });
  }
  existsSync(path: string): boolean {
    return fs.existsSync(path);
  }
  writeTextSync(path: string, text: string): void {
    fs.writeFileSync(path, text);
  }
  statSync(path: string): StorageStat | undefined {
    try {
      return toStat(fs.statSync(path));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
  listFilesSync(dir: string): string[] {
    return namesIn(dir, (d) => d.isFile());
  }
  listDirsSync(dir: string): string[] {
    return namesIn(dir, (d) => d.isDirectory());
  }
  async exists(path: string): Promise<boolean> {
    return (await this.stat(path)) !== undefined;
  }
  async stat(path: string): Promise<StorageStat | undefined> {
    try {
      return toStat(await fsp.stat(path));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
  async readText(path: string): Promise<string> {
    return (await readRegularFile(path)).toString('utf8');
  }
  async readTextPrefix(path: string, maxBytes: number): Promise<string> {
    const fh = await openRegularFile(path);
    try {
      const buf = Buffer.alloc(maxBytes);
      const { bytesRead } = await fh.read(buf, 0, maxBytes, 0);
      return decodePrefix(buf.subarray(0, bytesRead));
    } finally {
      await fh.close();
    }
  }
  async readBytesFrom(path: string, start: number): Promise<Buffer> {
    const fh = await openRegularFile(path);
    try {
      const { size } = await fh.stat();
      if (size <= start) return Buffer.alloc(0);
      const buf = Buffer.alloc(size - start);
      let off = 0;
      while (off < buf.length) {
        const { bytesRead } = await fh.read(buf, off, buf.length - off, start + off);
        if (bytesRead === 0) break;
        off += bytesRead;
      }
      return buf.subarray(0, off);
    } finally {
      await fh.close();
    }
  }
  writeText(path: string, text: string): Promise<void> {
    return fsp.writeFile(path, text);
  }
  async writeTextAtomic(path: string, text: string | Buffer): Promise<void> {
    const tmp = tempNameFor(path);
    const fh = await fsp.open(tmp, 'wx');
    try {
      await fh.writeFile(text);
      await fh.sync();
    } catch (err) {
      await fh.close().catch(() => undefined);
      await fsp.unlink(tmp).catch(() => undefined);
      throw err;
    }
    await fh.close();
    try {
      await fsp.rename(tmp, path);
    } catch (err) {
      await fsp.unlink(tmp).catch(() => undefined);
      throw err;
    }
    await fsyncDir(dirname(path));
  }
  copyFile(from: string, to: string): Promise<void> {
    return fsp.copyFile(from, to, fs.constants.COPYFILE_EXCL);
  }
  rename(from: string, to: string): Promise<void> {
    return fsp.rename(from, to);
  }
  unlink(path: string): Promise<void> {
    return fsp.unlink(path);
  }
  async openWriter(path: string): Promise<SessionStorageWriter> {
    return new FileWriter(await fsp.open(path, 'a'));
  }
  async countNewlines(path: string): Promise<number> {
    const fh = await openRegularFile(path);
    try {
      const buf = Buffer.alloc(1 << 16);
      let count = 0;
      for (;;) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, null);
        if (bytesRead === 0) return count;
        for (let i = buf.indexOf(10, 0); i !== -1 && i < bytesRead; i = buf.indexOf(10, i + 1)) count++;
      }
    } finally {
      await fh.close();
    }
  }
}

/** Makes a rename durable; some platforms (Windows) cannot open a folder, which is fine to ignore there. */
async function fsyncDir(dir: string): Promise<void> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw err;
  } finally {
    await fh?.close();
  }
}

/** Decodes a byte prefix, dropping a UTF-8 character cut in half at the end. */
function decodePrefix(buf: Buffer): string {
  let end = buf.length;
  // walk back over continuation bytes to the lead byte of the last character and check it is complete
  let i = end - 1;
  let cont = 0;
  while (i >= 0 && (buf[i]! & 0xc0) === 0x80 && cont < 3) {
    i--;
    cont++;
  }
  if (i >= 0) {
    const lead = buf[i]!;
    const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
    if (need > cont) end = i;
  }
  return buf.subarray(0, end).toString('utf8');
}

interface MemFile {
  data: Buffer;
  mtimeMs: number;
  birthtimeMs: number;
}

class MemoryWriter implements SessionStorageWriter {
  #closed = false;
  constructor(
    private readonly storage: MemorySessionStorage,
    private readonly path: string,
  ) {}
  async writeLine(line: string): Promise<void> {
    return this.writeRaw(line + '\n');
  }
  async writeRaw(text: string): Promise<void> {
    if (this.#closed) throw new Error('session writer is closed');
    this.storage.appendSync(this.path, text);
  }
  async flush(): Promise<void> {}
  async fsync(): Promise<void> {}
  async close(): Promise<void> {
    this.#closed = true;
  }
  getError(): Error | undefined {
    return undefined;
  }
}

/** A map from absolute path to bytes. Directories exist implicitly once created. */
export class MemorySessionStorage implements SessionStorage {
  readonly shared = false;
  readonly files = new Map<string, MemFile>();
  readonly dirs = new Set<string>();

  #get(path: string): MemFile {
    const f = this.files.get(path);
    if (!f) throw Object.assign(new Error(`ENOENT: no such file, '${path}'`), { code: 'ENOENT' });
    return f;
  }
  #put(path: string, data: Buffer): void {
    const now = Date.now();
    const old = this.files.get(path);
    this.files.set(path, { data, mtimeMs: now, birthtimeMs: old?.birthtimeMs ?? now });
    this.ensureDirSync(dirname(path));
  }
  appendSync(path: string, text: string): void {
    const old = this.files.get(path);
    this.#put(path, Buffer.concat([old?.data ?? Buffer.alloc(0), Buffer.from(text, 'utf8')]));
  }
  ensureDirSync(dir: string): void {
    for (let d = dir; !this.dirs.has(d); d = dirname(d)) {
      this.dirs.add(d);
      if (dirname(d) === d) break;
    }
  }
  existsSync(path: string): boolean {
    return this.files.has(path) || this.dirs.has(path);
  }
  writeTextSync(path: string, text: string): void {
    this.#put(path, Buffer.from(text, 'utf8'));
  }
  statSync(path: string): StorageStat | undefined {
    const f = this.files.get(path);
    if (f) return { size: f.data.length, mtimeMs: f.mtimeMs, birthtimeMs: f.birthtimeMs, isFile: true, isDirectory: false };
    if (this.dirs.has(path)) return { size: 0, mtimeMs: 0, birthtimeMs: 0, isFile: false, isDirectory: true };
    return undefined;
  }
  listFilesSync(dir: string): string[] {
    return [...this.files.keys()].filter((p) => dirname(p) === dir).map((p) => basename(p));
  }
  listDirsSync(dir: string): string[] {
    return [...this.dirs].filter((p) => p !== dir && dirname(p) === dir).map((p) => basename(p));
  }
  async exists(path: string): Promise<boolean> {
    return this.existsSync(path);
  }
  async stat(path: string): Promise<StorageStat | undefined> {
    return this.statSync(path);
  }
  async readText(path: string): Promise<string> {
    return this.#get(path).data.toString('utf8');
  }
  async readTextPrefix(path: string, maxBytes: number): Promise<string> {
    return decodePrefix(this.#get(path).data.subarray(0, maxBytes));
  }
  async readBytesFrom(path: string, start: number): Promise<Buffer> {
    return Buffer.from(this.#get(path).data.subarray(start));
  }
  async writeText(path: string, text: string): Promise<void> {
    this.writeTextSync(path, text);
  }
  async writeTextAtomic(path: string, text: string | Buffer): Promise<void> {
    this.#put(path, Buffer.isBuffer(text) ? Buffer.from(text) : Buffer.from(text, 'utf8'));
  }
  async copyFile(from: string, to: string): Promise<void> {
    if (this.files.has(to)) throw Object.assign(new Error(`EEXIST: '${to}'`), { code: 'EEXIST' });
    this.#put(to, Buffer.from(this.#get(from).data));
  }
  async rename(from: string, to: string): Promise<void> {
    const f = this.#get(from);
    this.files.delete(from);
    this.files.set(to, f);
  }
  async unlink(path: string): Promise<void> {
    this.#get(path);
    this.files.delete(path);
  }
  async countNewlines(path: string): Promise<number> {
    const data = this.#get(path).data;
    let count = 0;
    for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) count++;
    return count;
  }
  async openWriter(path: string): Promise<SessionStorageWriter> {
    if (!this.files.has(path)) this.#put(path, Buffer.alloc(0));
    return new MemoryWriter(this, path);
  }
}
