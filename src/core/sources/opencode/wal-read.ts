// A SQLite database in WAL mode, read as its writer last committed it, without SQLite: the main file's bytes with
// the WAL's committed frames laid over them (https://www.sqlite.org/fileformat2.html#walformat). sql.js opens a copy
// of bytes in memory and never sees a -wal file, and opening the real file with a SQLite library would take locks and
// may create or write the -shm file: this only reads, so OpenCode's writer is never blocked and nothing of its is
// written.
//
// Consistency while the writer runs: frames are appended to the WAL, and a checkpoint copies committed frames into
// the main file before the WAL is started again with new salts. So the WAL's header is read first, then the main
// file, then the whole WAL; if the header changed (a restarted WAL: the main file may hold pages of frames we no
// longer see) the read starts again. Within one WAL generation every page a checkpoint wrote into the main file is
// also in the WAL we read after it, committed, and laid over it. Frames are used only up to the last commit frame
// whose salts and running checksum are right: a transaction being written, or a torn frame, is not seen.
import { readRegularFile } from '../../agent-files';

const WAL_HEADER = 32;
const FRAME_HEADER = 24;
const MAGIC_LE = 0x377f0682;
const MAGIC_BE = 0x377f0683;
const ATTEMPTS = 20;

export class DatabaseReadError extends Error {}

interface WalHeader {
  bigEndian: boolean;
  pageSize: number;
  salt1: number;
  salt2: number;
  s0: number;
  s1: number;
}

/** SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from s0/s1. */
function checksum(data: Uint8Array, bigEndian: boolean, s0: number, s1: number): [number, number] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let a = s0 >>> 0;
  let b = s1 >>> 0;
  for (let i = 0; i + 8 <= data.byteLength; i += 8) {
    a = (a + view.getUint32(i, !bigEndian) + b) >>> 0;
    b = (b + view.getUint32(i + 4, !bigEndian) + a) >>> 0;
  }
  return [a, b];
}

function parseWalHeader(wal: Uint8Array): WalHeader | undefined {
  if (wal.byteLength < WAL_HEADER) return undefined;
  const view = new DataView(wal.buffer, wal.byteOffset, WAL_HEADER);
  const magic = view.getUint32(0);
  if (magic !== MAGIC_LE && magic !== MAGIC_BE) return undefined;
  const bigEndian = magic === MAGIC_BE;
  const pageSize = view.getUint32(8);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return undefined;
  const [s0, s1] = checksum(wal.subarray(0, 24), bigEndian, 0, 0);
  if (s0 !== view.getUint32(24) || s1 !== view.getUint32(28)) return undefined;
  return { bigEndian, pageSize, salt1: view.getUint32(16), salt2: view.getUint32(20), s0, s1 };
}

/** The pages of the WAL's committed transactions (page number → bytes; the newest copy wins) and the database's
 *  size in pages after the last of them; undefined when no transaction is committed in it. */
export function committedWalPages(wal: Uint8Array): { pages: Map<number, Uint8Array>; dbPages: number } | undefined {
  const h = parseWalHeader(wal);
  if (!h) return undefined;
  const frameSize = FRAME_HEADER + h.pageSize;
  const pending = new Map<number, Uint8Array>();
  const pages = new Map<number, Uint8Array>();
  let dbPages = 0;
  let [s0, s1] = [h.s0, h.s1];
  for (let off = WAL_HEADER; off + frameSize <= wal.byteLength; off += frameSize) {
    const view = new DataView(wal.buffer, wal.byteOffset + off, FRAME_HEADER);
    const pageNo = view.getUint32(0);
    const commitSize = view.getUint32(4);
    if (view.getUint32(8) !== h.salt1 || view.getUint32(12) !== h.salt2 || pageNo === 0) break;
    [s0, s1] = checksum(wal.subarray(off, off + 8), h.bigEndian, s0, s1);
    [s0, s1] = checksum(wal.subarray(off + FRAME_HEADER, off + frameSize), h.bigEndian, s0, s1);
    if (s0 !== view.getUint32(16) || s1 !== view.getUint32(20)) break;
    pending.set(pageNo, wal.subarray(off + FRAME_HEADER, off + frameSize));
    if (commitSize > 0) {
      for (const [n, bytes] of pending) pages.set(n, bytes);
      pending.clear();
      dbPages = commitSize;
    }
  }
  return dbPages > 0 ? { pages, dbPages } : undefined;
}

/** The main file with the WAL's committed pages laid over it, marked as a rollback-journal database (bytes 18-19),
 *  so that an in-memory copy opens without looking for a WAL of its own. */
export function mergeWal(db: Uint8Array, wal: Uint8Array | undefined): Uint8Array {
  const committed = wal ? committedWalPages(wal) : undefined;
  let out: Uint8Array;
  if (!committed)
    out = new Uint8Array(db); // a copy in one move (Uint8Array.from goes byte by byte)
  else {
    const pageSize = committed.pages.values().next().value!.byteLength;
    out = new Uint8Array(committed.dbPages * pageSize);
    out.set(db.subarray(0, Math.min(db.byteLength, out.byteLength)));
    for (const [n, bytes] of committed.pages) if (n <= committed.dbPages) out.set(bytes, (n - 1) * pageSize);
  }
  if (out.byteLength >= 100 && out[18] === 2 && out[19] === 2) {
    out[18] = 1;
    out[19] = 1;
  }
  return out;
}

async function readOptional(path: string): Promise<Uint8Array | undefined> {
  try {
    return await readRegularFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

const headerOf = (wal: Uint8Array | undefined): string => (wal && wal.byteLength >= WAL_HEADER ? Buffer.from(wal.subarray(0, WAL_HEADER)).toString('hex') : '');

/** The committed content of the database at `dbPath` (with its `-wal`), read without writing or locking anything.
 *  Throws ENOENT when it does not exist, DatabaseReadError when the writer kept restarting its WAL meanwhile. */
export async function readCommittedDatabase(dbPath: string): Promise<Uint8Array> {
  const walPath = `${dbPath}-wal`;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = headerOf(await readOptional(walPath));
    const db = await readRegularFile(dbPath);
    const wal = await readOptional(walPath);
    if (headerOf(wal) === before) return mergeWal(db, wal);
    await new Promise((ok) => setTimeout(ok, Math.min(50, 2 * (attempt + 1))));
  }
  throw new DatabaseReadError(`${dbPath}: its write-ahead log kept being restarted while it was read; try again`);
}
