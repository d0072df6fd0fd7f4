// Flow 5, "Compare branches": a session recorded through the real CLI whose two branches set up the database layer
// differently (PostgreSQL on one, MySQL on the other, the files rewound in between). "Compare with…" on a branch row
// opens both side by side: where they part, each one's messages, the files that differ with +/−; a file row opens
// VS Code's diff editor of the file on A against the file on B.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { appendMessage, branchNames, cli, writeFiles } from '../../scripts/e2e/sessions.mjs';
import { branchRow } from './support/agent-rewind';
import { e2eEnv } from './support/env';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { contextMenu, editorTab, pickQuickItem, webviewFrame } from './support/workbench';

const TITLE = 'Orders database';

interface ComparedSession {
  file: string;
  divergence: string;
  a: { branch: string; messages: string[] };
  b: { branch: string; messages: string[] };
}

function createComparedSession(repo: string, home: string, workspace: string): ComparedSession {
  writeFiles(workspace, { 'README.md': '# Orders service\n', 'src/db.js': "module.exports = { driver: 'sqlite' };\n" });
  const { file } = cli(repo, home, ['new', '--cwd', workspace, '--title', TITLE]);
  const say = (role: 'user' | 'assistant', text: string) => appendMessage(repo, home, file, role, text);
  say('user', 'Which database should the orders service use?');
  say('assistant', 'SQLite is enough for a start.');
  const u2 = say('user', 'We will have many writers. Set up the database layer.');
  const before = branchNames(repo, home, file).active!;
  // Branch A: PostgreSQL.
  writeFiles(workspace, {
    'src/db.js': "const { Pool } = require('pg');\nmodule.exports = new Pool({ max: 20 });\n",
    'config/postgres.conf': 'max_connections = 200\nshared_buffers = 1GB\n',
  });
  const a2 = say('assistant', 'Set up PostgreSQL with a connection pool.');
  const a3u = say('user', 'Add a first migration');
  writeFiles(workspace, { 'migrations/001-orders.sql': 'create table orders (id serial primary key);\n' });
  const a3 = say('assistant', 'Added `migrations/001-orders.sql`.');
  // The user went back to the same question, files included, and got another answer: branch B, MySQL.
  cli(repo, home, ['rewind', file, u2, '--files']);
  const after = branchNames(repo, home, file).active!;
  writeFiles(workspace, {
    'src/db.js': "const mysql = require('mysql2');\nmodule.exports = mysql.createPool({ connectionLimit: 20 });\n",
    'config/mysql.cnf': '[mysqld]\nmax_connections = 200\nlog_bin = ON\n',
  });
  const b2 = say('assistant', 'Set up MySQL with a replica-ready binlog.');
  const b3u = say('user', 'Add a first migration for MySQL');
  const b3 = say('assistant', 'Added the migration for MySQL.');
  return { file, divergence: u2, a: { branch: before, messages: [a2, a3u, a3] }, b: { branch: after, messages: [b2, b3u, b3] } };
}

describe('flow 5: Compare branches', () => {
  let vs: VsCode | undefined;
  let s: ComparedSession;
  before(async () => {
    vs = await openVsCode({
      name: 'flow5',
      prepare: ({ workspace, home }) => {
        s = createComparedSession(e2eEnv().repo, home, workspace);
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  it('flow 5: "Compare with…" on a branch row shows both branches side by side and opens a file\'s diff A ↔ B', () =>
    withArtifacts(
      () => vs,
      'flow 5 compare branches',
      async () => {
        const { page } = vs!;
        const row = await branchRow(page, TITLE, s.a.branch);
        await contextMenu(page, row, /Compare with/);
        await pickQuickItem(page, s.b.branch);
        await editorTab(page, `Compare: ${s.a.branch} ↔ ${s.b.branch}`).waitFor({ state: 'visible', timeout: 30_000 });
        const frame = await webviewFrame(page, '[data-testid="file-row"]', 30_000);

        // Where they part, and each side's branch and messages after it.
        assert.equal(await frame.locator('[data-testid="divergence-message"]').getAttribute('data-entry-id'), s.divergence);
        for (const [letter, side] of [
          ['a', s.a],
          ['b', s.b],
        ] as const) {
          const column = frame.locator(`[data-testid="column-${letter}"]`);
          assert.equal(await column.getAttribute('data-branch'), side.branch);
          const ids = await column.locator('[data-testid="message"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-entry-id')));
          assert.deepEqual(ids, side.messages, `column ${letter} lists the messages after the divergence`);
        }

        // The files that differ between the two branches' latest snapshots (as the agent left them after its last
        // reply on each), with their line counts.
        const rows = await frame
          .locator('[data-testid="file-row"]')
          .evaluateAll((els) =>
            els.map((e) => [
              e.getAttribute('data-path'),
              e.getAttribute('data-status'),
              e.querySelector('[data-testid="insertions"]')?.textContent,
              e.querySelector('[data-testid="deletions"]')?.textContent,
            ]),
          );
        assert.deepEqual(rows, [
          ['config/mysql.cnf', 'added', '3', '0'],
          ['config/postgres.conf', 'deleted', '0', '2'],
          ['migrations/001-orders.sql', 'deleted', '0', '1'],
          ['src/db.js', 'modified', '2', '2'],
        ]);
        await keyMomentScreenshot(vs!, 'compare-branches');

        // A file row opens VS Code's diff editor: the file on A (PostgreSQL) against the file on B (MySQL).
        await frame.locator('[data-testid="file-row"][data-path="src/db.js"]').click();
        await editorTab(page, `db.js (${s.a.branch} ↔ ${s.b.branch})`).waitFor({ state: 'visible', timeout: 30_000 });
        const diff = page.locator('.monaco-diff-editor').first();
        await diff.locator('.editor.original .view-lines').filter({ hasText: "require('pg')" }).waitFor({ state: 'visible', timeout: 30_000 });
        await diff.locator('.editor.modified .view-lines').filter({ hasText: "require('mysql2')" }).waitFor({ state: 'visible', timeout: 30_000 });
      },
    ));
});
