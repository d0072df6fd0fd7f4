// The catalog reads sessions through the core loader (SessionManager.open) so it sees exactly what the rest of
// agent-rewind sees, but it must never change a session file: open() migrates v1/v2 files and rewrites them, backs up
// a file with a bad header, and creates missing files. This storage reads the real disk and drops every write.
import { FileSessionStorage, type SessionStorage, type SessionStorageWriter, type StorageStat } from '../session/storage';

const nullWriter: SessionStorageWriter = {
  writeLine: async () => {},
  writeRaw: async () => {},
  flush: async () => {},
  fsync: async () => {},
  close: async () => {},
  getError: () => undefined,
};

export class ReadOnlySessionStorage implements SessionStorage {
  /** Not shared: SessionManager then takes no cross-process lock (a lock file would be a write). */
  readonly shared = false;
  /** How many writes were dropped (tests use it to show a load did want to write). */
  droppedWrites = 0;

  constructor(private readonly disk: SessionStorage = new FileSessionStorage()) {}

  #drop(): void {
    this.droppedWrites++;
  }

  ensureDirSync(): void {
    this.#drop();
  }
  existsSync(path: string): boolean {
    return this.disk.existsSync(path);
  }
  writeTextSync(): void {
    this.#drop();
  }
  statSync(path: string): StorageStat | undefined {
    return this.disk.statSync(path);
  }
  listFilesSync(dir: string): string[] {
    return this.disk.listFilesSync(dir);
  }
  listDirsSync(dir: string): string[] {
    return this.disk.listDirsSync(dir);
  }
  exists(path: string): Promise<boolean> {
    return this.disk.exists(path);
  }
  stat(path: string): Promise<StorageStat | undefined> {
    return this.disk.stat(path);
  }
  readText(path: string): Promise<string> {
    return this.disk.readText(path);
  }
  readTextPrefix(path: string, maxBytes: number): Promise<string> {
    return this.disk.readTextPrefix(path, maxBytes);
  }
  readBytesFrom(path: string, start: number): Promise<Buffer> {
    return this.disk.readBytesFrom(path, start);
  }
  countNewlines(path: string): Promise<number> {
    return this.disk.countNewlines(path);
  }
  async writeText(): Promise<void> {
    this.#drop();
  }
  async writeTextAtomic(): Promise<void> {
    this.#drop();
  }
  async copyFile(): Promise<void> {
    this.#drop();
  }
  async rename(): Promise<void> {
    this.#drop();
  }
  async unlink(): Promise<void> {
    this.#drop();
  }
  async openWriter(): Promise<SessionStorageWriter> {
    this.#drop();
    return nullWriter;
  }
}
