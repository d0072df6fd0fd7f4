// The committed content of a WAL-mode database, read without SQLite: committed frames laid over the main file,
// uncommitted, torn, corrupt and stale-salt frames left out; a database being written by a real SQLite (python3's
// sqlite3, where there is one) read many times, each read whole and consistent; and nothing of OpenCode's written.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadSqlJs } from '../../../../src/core/sqljs-loader';
import { listDbSessions, openOpenCodeDb } from '../../../../src/core/sources/opencode/db-rows';
import { mergeWal, readCommittedDatabase } from '../../../../src/core/sources/opencode/wal-read';
import { encodeWal, framesOf, insertSession, memoryDb, ocId, userMessage, type TestSession } from './builder';

const PAGE = 4096;
const session = (title: string): TestSession => ({ id: ocId('ses'), directory: '/w', title, messages: [userMessage(title)] });

async function titlesIn(bytes: Uint8Array): Promise<string[]> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(bytes);
  try {
    return listDbSessions(db)
      .map((s) => s.title)
      .sort();
  } finally {
    db.close();
  }
}

const python = spawnSync('python3', ['-c', 'import sqlite3'], { encoding: 'utf8' });
const hasPythonSqlite = python.status === 0;

describe('OpenCode database read as committed', () => {
  let dir: string;
  let older: Uint8Array;
  let newer: Uint8Array;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-opencode-wal-'));
    const db = await memoryDb([session('one')]);
    older = db.export();
    insertSession(db, session('two'));
    for (let i = 0; i < 40; i++) insertSession(db, session(`filler ${i} ${'x'.repeat(400)}`));
    newer = db.export();
    db.close();
    assert.ok(newer.byteLength > older.byteLength, 'the newer database has more pages');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('lays a committed transaction of the WAL over the main file', async () => {
    const merged = mergeWal(older, encodeWal(PAGE, framesOf(newer, PAGE)));
    const titles = await titlesIn(merged);
    assert.equal(titles.length, 42);
    assert.ok(titles.includes('two'));
  });

  it('leaves out frames after the last commit (a transaction being written) and a torn last frame', async () => {
    const frames = framesOf(newer, PAGE).map((f) => ({ ...f, commit: 0 }));
    assert.deepEqual(await titlesIn(mergeWal(older, encodeWal(PAGE, frames))), ['one']);
    const whole = encodeWal(PAGE, framesOf(newer, PAGE));
    assert.deepEqual(await titlesIn(mergeWal(older, whole.subarray(0, whole.length - 100))), ['one']);
  });

  it('stops at a frame whose checksum is wrong, and ignores frames of an earlier WAL generation (other salts)', async () => {
    const frames = framesOf(newer, PAGE);
    assert.deepEqual(await titlesIn(mergeWal(older, encodeWal(PAGE, frames, { corruptFrame: 1 }))), ['one']);
    const current = encodeWal(PAGE, frames, { salts: [1, 2] });
    const stale = encodeWal(PAGE, frames, { salts: [3, 4] });
    // the header of generation [1,2] followed by frames of generation [3,4]
    const mixed = Buffer.concat([current.subarray(0, 32), stale.subarray(32)]);
    assert.deepEqual(await titlesIn(mergeWal(older, mixed)), ['one']);
  });

  it('a WAL that is empty, short or not a WAL leaves the main file as it is', async () => {
    for (const wal of [new Uint8Array(0), new Uint8Array(20), Buffer.alloc(PAGE * 2, 7)]) assert.deepEqual(await titlesIn(mergeWal(older, wal)), ['one']);
  });

  it('reads opencode.db and its -wal from disk without writing anything there (no -shm made, bytes and times kept)', async () => {
    const d = join(dir, 'ondisk');
    mkdirSync(d);
    const file = join(d, 'opencode.db');
    const main = Uint8Array.from(older);
    main[18] = 2; // marked as a WAL database, as OpenCode's is
    main[19] = 2;
    writeFileSync(file, main);
    writeFileSync(`${file}-wal`, encodeWal(PAGE, framesOf(newer, PAGE)));
    const before = readdirSync(d).map((n) => [n, statSync(join(d, n)).mtimeMs, readFileSync(join(d, n)).toString('base64')]);
    const db = await openOpenCodeDb(file);
    assert.equal(listDbSessions(db).length, 42);
    db.close();
    const after = readdirSync(d).map((n) => [n, statSync(join(d, n)).mtimeMs, readFileSync(join(d, n)).toString('base64')]);
    assert.deepEqual(after, before);
    assert.equal(existsSync(`${file}-shm`), false);
  });

  it('refuses a file that is not a database with a clear error, and a FIFO without waiting for a writer', async () => {
    const d = join(dir, 'bad');
    mkdirSync(d);
    writeFileSync(join(d, 'opencode.db'), 'not a database at all, just text'.repeat(200));
    await assert.rejects(openOpenCodeDb(join(d, 'opencode.db')), /not a readable SQLite database/);
    if (process.platform !== 'win32') {
      const fifo = join(d, 'fifo.db');
      spawnSync('mkfifo', [fifo]);
      await assert.rejects(readCommittedDatabase(fifo), /not a regular file/);
    }
  });

  it(
    'a database a real SQLite is writing (WAL, a checkpoint every 64 pages, a restart every 100 transactions) reads whole and consistent every time',
    { skip: hasPythonSqlite ? false : 'python3 with sqlite3 is not installed' },
    async () => {
      const d = join(dir, 'live');
      mkdirSync(d);
      const file = join(d, 'opencode.db');
      // every transaction inserts a row and bumps a counter row to the row count: a read that mixed two states
      // (pages of one transaction, pages of another) would see them differ, or fail to open
      const script = `
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA wal_autocheckpoint=64")
db.execute("CREATE TABLE session (id text PRIMARY KEY, directory text NOT NULL, title text NOT NULL, time_created integer, time_updated integer)")
db.execute("CREATE TABLE counter (n integer)")
db.execute("INSERT INTO counter VALUES (0)")
print("ready", flush=True)
end = time.time() + 4
i = 0
while time.time() < end:
    i += 1
    db.execute("BEGIN")
    db.execute("INSERT INTO session VALUES (?, '/w', ?, 0, 0)", ("ses_%012d" % i, "t" * (200 + i % 3000)))
    db.execute("UPDATE counter SET n = n + 1")
    db.execute("COMMIT")
    if i % 100 == 0:
        db.execute("PRAGMA wal_checkpoint(RESTART)")
    time.sleep(0.001)
print("done", i, flush=True)
`;
      const writer = spawn('python3', ['-c', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((ok) => writer.stdout.once('data', () => ok()));
      const writerDone = new Promise<string>((ok) => {
        let out = '';
        writer.stdout.on('data', (c) => (out += c));
        writer.on('close', () => ok(out));
      });
      const SQL = await loadSqlJs();
      let reads = 0;
      let last = -1;
      let running = true;
      void writerDone.then(() => (running = false));
      while (running) {
        const db = new SQL.Database(await readCommittedDatabase(file));
        try {
          const rows = Number(db.exec('SELECT count(*) FROM session')[0]!.values[0]![0]);
          const counter = Number(db.exec('SELECT n FROM counter')[0]!.values[0]![0]);
          assert.equal(rows, counter, `read ${reads}: rows and counter from one transaction`);
          assert.equal(String(db.exec('PRAGMA integrity_check')[0]!.values[0]![0]), 'ok');
          assert.ok(rows >= last, 'never older than an earlier read');
          last = rows;
        } finally {
          db.close();
        }
        reads++;
      }
      assert.match(await writerDone, /done \d+/);
      assert.ok(reads >= 5, `read ${reads} times while it was written`);
    },
  );
});
