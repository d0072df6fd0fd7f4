// OpenCode reader benchmark: opening a session of 5,000 messages in an opencode.db shaped like what 1.18 writes (per
// turn a user message with its text part, an assistant message with step-start, a bash tool call with its output,
// step-finish and patch parts, and a closing text), against the raw read of the same rows (the database's bytes read,
// opened in sql.js, SELECT * of the session's message and part rows and their `data` JSON parsed), interleaved in one run
// because the machine is shared. Both sides start from the file: the reader's in-memory copy is not reused.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSqlJs } from '../src/core/sqljs-loader';
import { readCommittedDatabase } from '../src/core/sources/opencode/wal-read';
import { readOpenCodeSession } from '../src/core/sources/opencode/reader';
import { prng as rng } from '../test/support/prng';
import { timeAgainstReference } from './bench-tools';
import { median, type BenchModule, type BenchSection } from './types';

const WORDS = 'the model reads a file then edits it and runs the tests until they pass so the change can be reviewed'.split(' ');
const SESSION = 'ses_0bench00000000000000000001';

export async function generate(file: string, turns: number): Promise<number> {
  const r = rng(7);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.exec(`CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL,
    title text NOT NULL, version text NOT NULL, revert text, model text, time_created integer NOT NULL, time_updated integer NOT NULL);
  CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
  CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
  CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
  CREATE INDEX part_message_id_id_idx ON part (message_id, id);
  CREATE INDEX part_session_idx ON part (session_id);`);
  let clock = Date.parse('2026-11-01T00:00:00.000Z');
  let seq = 0;
  const id = (p: string) => `${p}_${(++seq).toString(16).padStart(12, '0')}bench`;
  db.run('BEGIN');
  db.run("INSERT INTO session VALUES (?, 'proj', NULL, 'slug', '/bench/repo', 'Benchmark session', '1.18.33', NULL, NULL, ?, ?)", [SESSION, clock, clock]);
  const message = (data: Record<string, unknown>) => {
    const m = id('msg');
    db.run('INSERT INTO message VALUES (?, ?, ?, ?, ?)', [m, SESSION, clock, clock, JSON.stringify(data)]);
    return m;
  };
  const part = (m: string, data: Record<string, unknown>) =>
    db.run('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)', [id('prt'), m, SESSION, clock, clock, JSON.stringify(data)]);
  let messages = 0;
  for (let t = 0; t < turns; t++) {
    clock += 1000;
    const u = message({ role: 'user', time: { created: clock }, agent: 'build', model: { providerID: 'fake', modelID: 'fake-model' } });
    part(u, { type: 'text', text: text(40) });
    clock += 1000;
    const a = message({
      role: 'assistant',
      parentID: u,
      providerID: 'fake',
      modelID: 'fake-model',
      path: { cwd: '/bench/repo', root: '/bench/repo' },
      time: { created: clock, completed: clock + 900 },
      finish: 'stop',
    });
    part(a, { type: 'step-start', snapshot: 'a'.repeat(40) });
    part(a, {
      type: 'tool',
      tool: 'bash',
      callID: `call_${t}`,
      state: {
        status: 'completed',
        input: { command: `npm test -- ${text(5)}`, description: 'test' },
        output: text(400 + Math.floor(r() * 600)),
        title: 'npm test',
        time: { start: clock, end: clock + 100 },
      },
    });
    part(a, { type: 'step-finish', reason: 'tool-calls', snapshot: 'b'.repeat(40), tokens: { total: 120, input: 100, output: 20 } });
    part(a, { type: 'patch', hash: 'a'.repeat(40), files: [`/bench/repo/src/f${t % 40}.ts`] });
    part(a, { type: 'text', text: text(80) });
    messages += 2;
  }
  db.run('COMMIT');
  writeFileSync(file, db.export());
  db.close();
  return messages;
}

/** The session's rows read the plainest way: the bytes as committed, opened in sql.js, every column of the session's
 *  messages and parts selected (in whatever order SQLite gives them: ordering is the reader's own work), the JSON of
 *  their `data` parsed (the reader needs it too), and the rows kept, as any read that returns them does. */
async function rawRead(file: string): Promise<unknown[][]> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(await readCommittedDatabase(file));
  const rows: unknown[][] = [];
  try {
    for (const table of ['message', 'part']) {
      const st = db.prepare(`SELECT * FROM ${table} WHERE session_id = ?`);
      st.bind([SESSION]);
      while (st.step()) {
        const row: unknown[] = st.get();
        const data = row.length - 1; // `data` is both tables' last column (see generate)
        row[data] = JSON.parse(String(row[data]));
        rows.push(row);
      }
      st.free();
    }
  } finally {
    db.close();
  }
  return rows;
}

const ms = (x: number) => x.toFixed(1) + ' ms';

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const turns = quick ? 200 : 2500;
  const dir = mkdtempSync(join(tmpdir(), 'ar-bench-opencode-'));
  try {
    const dataDir = join(dir, 'opencode');
    mkdirSync(dataDir);
    const file = join(dataDir, 'opencode.db');
    const messages = await generate(file, turns);
    const mb = statSync(file).size / 2 ** 20;
    const reps = quick ? 3 : 7;
    let entries = 0;
    // CPU time beside the wall clock: on this shared machine a side's wall time is mostly its wait for a core
    const times = await timeAgainstReference(
      reps,
      () => rawRead(file),
      async () => {
        entries = (await readOpenCodeSession(dataDir, SESSION, 'ref'))!.getEntries().length;
      },
    );
    const row = (what: string, read: number, raw: number): string =>
      `| ${what} | ${ms(read)} | ${ms(raw)} | ${(read / raw).toFixed(2)} | ratio ≤ 2 ${read <= 2 * raw ? '✓' : '✗'} |`;
    const [read, raw, readCpu, rawCpu] = [median(times.ours), median(times.reference), median(times.oursCpu), median(times.referenceCpu)];
    const ok = read <= 2 * raw && readCpu <= 2 * rawCpu;
    const session = `open a session of ${messages.toLocaleString('en')} messages (${mb.toFixed(1)} MB opencode.db → ${entries.toLocaleString('en')} entries; p50 of ${reps})`;
    const markdown = [
      '| figure | measured | reference (raw read of its rows) | ratio | target |',
      '|---|--:|--:|--:|---|',
      row(`${session}, wall clock`, read, raw),
      row(`the same, CPU time of the process (garbage collector's threads included)`, readCpu, rawCpu),
      '',
      `Load average when it ended: ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores.`,
    ].join('\n');
    return { title: 'OpenCode reader', markdown, ok };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default { run } satisfies BenchModule;
