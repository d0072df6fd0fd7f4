// `agent-rewind compare` in real processes: a session recorded through the CLI with two branches that changed
// different files, compared as JSON and as text (control characters filtered).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundledCli } from '../files/helpers';

const ROOT = resolve(__dirname, '../../..');

function cli(home: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [bundledCli(), ...args, '--home', home], { encoding: 'utf8', cwd: ROOT });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

test('CLI: compare prints where two branches part, their messages and the files that differ', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ar-compare-cli-'));
  try {
    const home = join(dir, 'home');
    const ws = join(dir, 'ws');
    await mkdir(ws);
    const root = await realpath(ws);
    await writeFile(join(root, 'db.txt'), 'sqlite\n');
    const created = cli(home, 'new', '--cwd', root, '--title', 'Pick a database', '--json');
    assert.equal(created.code, 0, created.stderr);
    const file: string = created.json().file;
    const append = (role: string, text: string) => {
      const r = cli(home, 'append', file, '--role', role, '--text', text, '--json');
      assert.equal(r.code, 0, r.stderr);
      return r.json().id as string;
    };
    const u1 = append('user', 'Which database?');
    await writeFile(join(root, 'db.txt'), 'postgres\n');
    append('assistant', 'PostgreSQL.');
    append('user', 'Write the schema');
    const rewound = cli(home, 'rewind', file, u1, '--json');
    assert.equal(rewound.code, 0, rewound.stderr);
    const other: string = rewound.json().name;
    await writeFile(join(root, 'db.txt'), 'mysql\nreplica\n');
    await writeFile(join(root, 'schema.sql'), 'create table t;\n');
    append('assistant', 'MySQL \u001b[31mwith a replica\u001b[0m.');
    append('user', 'Write the schema for MySQL');

    const json = cli(home, 'compare', file, 'main', other, '--json');
    assert.equal(json.code, 0, json.stderr);
    const m = json.json();
    assert.equal(m.divergence.entryId, u1);
    assert.deepEqual(
      m.a.messages.map((x: { preview: string }) => x.preview),
      ['PostgreSQL.', 'Write the schema'],
    );
    assert.equal(m.b.messages.length, 2);
    assert.deepEqual(
      m.files.files.map((f: { path: string; status: string; insertions: number; deletions: number }) => [f.path, f.status, f.insertions, f.deletions]),
      [
        ['db.txt', 'modified', 2, 1],
        ['schema.sql', 'added', 1, 0],
      ],
    );

    const human = cli(home, 'compare', file, 'main', other);
    assert.equal(human.code, 0, human.stderr);
    assert.ok(!human.stdout.includes('\u001b'), 'no raw escape sequence reaches the terminal');
    assert.match(human.stdout, /they part after: \S+ {2}Which database\?/);
    assert.match(human.stdout, /^A main: 2 messages after it$/m);
    assert.match(human.stdout, new RegExp(`^B ${other} \\(active\\): 2 messages after it$`, 'm'));
    assert.match(human.stdout, /files: 2 differ \(\+3 −1 lines from A to B\)/);
    assert.match(human.stdout, /^ {2}modified {5}db\.txt \+2 −1$/m);

    const missing = cli(home, 'compare', file, 'main', 'nope');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Branch "nope" not found/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('CLI: compare --with compares a branch of one session with a branch of another session of the folder', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ar-compare-cli-with-'));
  try {
    const home = join(dir, 'home');
    const ws = join(dir, 'ws');
    await mkdir(ws);
    const root = await realpath(ws);
    const session = (title: string) => {
      const r = cli(home, 'new', '--cwd', root, '--title', title, '--json');
      assert.equal(r.code, 0, r.stderr);
      return r.json() as { id: string; file: string };
    };
    const append = (file: string, role: string, text: string) => {
      const r = cli(home, 'append', file, '--role', role, '--text', text, '--json');
      assert.equal(r.code, 0, r.stderr);
    };
    const first = session('Postgres');
    await writeFile(join(root, 'db.txt'), 'postgres\n');
    append(first.file, 'user', 'Use PostgreSQL');
    append(first.file, 'assistant', 'Done.');
    const second = session('MySQL');
    await writeFile(join(root, 'db.txt'), 'mysql\nreplica\n');
    append(second.file, 'user', 'Use MySQL');
    append(second.file, 'assistant', 'Done, with a replica.');

    const json = cli(home, 'compare', first.id, 'main', 'main', '--with', second.id, '--json');
    assert.equal(json.code, 0, json.stderr);
    const m = json.json();
    assert.equal(m.divergence, null);
    assert.equal(m.a.session.sessionId, first.id);
    assert.equal(m.b.session.sessionId, second.id);
    assert.deepEqual(
      m.b.messages.map((x: { preview: string }) => x.preview),
      ['Use MySQL', 'Done, with a replica.'],
    );
    assert.deepEqual(
      m.files.files.map((f: { path: string; status: string; insertions: number; deletions: number }) => [f.path, f.status, f.insertions, f.deletions]),
      [['db.txt', 'modified', 2, 1]],
    );

    const human = cli(home, 'compare', first.id, 'main', 'main', '--with', second.id);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`^A main of "Postgres" \\(${first.id}\\) \\(active\\): 2 messages after it$`, 'm'));
    assert.match(human.stdout, new RegExp(`^B main of "MySQL" \\(${second.id}\\) \\(active\\): 2 messages after it$`, 'm'));
    assert.match(human.stdout, /they share no message/);

    const unknown = cli(home, 'compare', first.id, 'main', 'main', '--with', 'no-such-session');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no session with id "no-such-session"/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
