// Workspaces and agent sessions for the e2e tests and the `npm start` demo, written through the real CLI
// (dist/cli.js) so file snapshots are taken exactly as an agent's would be: `append --role user` snapshots the
// workspace anchored at the new message; `append --role assistant` marks the end of the agent's turn.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Runs `node dist/cli.js <args> --home <home> --json` and returns the parsed result; throws with stderr on failure. */
export function cli(repo, home, args) {
  const r = spawnSync(process.execPath, [join(repo, 'dist', 'cli.js'), ...args, '--home', home, '--json'], { encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`agent-rewind ${args.join(' ')} failed (${r.status}): ${r.stderr.trim() || r.stdout.trim()}`);
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`agent-rewind ${args.join(' ')} printed no JSON: ${r.stdout.slice(0, 500)}`);
  }
}

/**
 * Appends a message through the CLI and returns its id. `append --role user` snapshots the workspace (the session's
 * cwd) anchored at the new message unless `snapshot: false`; `--role assistant` takes the turn-end snapshot.
 */
export function appendMessage(repo, home, sessionRef, role, text, { snapshot = true } = {}) {
  const extra = role === 'user' && !snapshot ? ['--no-snapshot'] : [];
  return cli(repo, home, ['append', sessionRef, '--role', role, '--text', text, ...extra]).id;
}

export function writeFiles(root, files) {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

/** The agent's shell tool: a real shell command in the workspace (the file engine must catch these changes too). */
export function shell(workspace, command) {
  execFileSync('sh', ['-c', command], { cwd: workspace, stdio: 'pipe' });
}

// The "Rewind to here" session. Three turns; the second one partly works through a shell command.
export const REWIND_SESSION = {
  title: 'Greeting service',
  initial: {
    'README.md': '# Demo\n',
    'src/app.js': "const name = 'world';\nfunction main() {\n  console.log('hello');\n}\nmain();\n",
    'config.json': '{\n  "port": 3000,\n  "debug": false\n}\n',
    'notes/todo.txt': 'buy milk\nwrite tests\nship it\n',
  },
  afterTurn1: {
    'src/app.js': "const { greet } = require('./greet');\nconst name = 'world';\nfunction main() {\n  console.log(greet(name));\n}\nmain();\n",
    'src/greet.js': 'function greet(n) {\n  return `hello ${n}`;\n}\nmodule.exports = { greet };\n',
  },
  turn2Shell: "rm notes/todo.txt && sed -i 's/3000/8080/' config.json",
  afterTurn2: {
    'src/greet.js': 'function greet(n) {\n  return `Hello, ${n}!`;\n}\nmodule.exports = { greet };\n',
    'docs/CHANGES.md': '# Changes\n\n- port 8080\n',
  },
  afterTurn3: {
    'test/app.test.js': "const { greet } = require('../src/greet');\nconsole.assert(greet('a') === 'Hello, a!');\n",
  },
  /** What rewinding to the second user message must undo: lines added / removed since that message. */
  expectedAtSecondMessage: {
    'config.json': { insertions: 1, deletions: 1 },
    'docs/CHANGES.md': { insertions: 3, deletions: 0 },
    'notes/todo.txt': { insertions: 0, deletions: 3 },
    'src/greet.js': { insertions: 1, deletions: 1 },
    'test/app.test.js': { insertions: 2, deletions: 0 },
  },
};

/**
 * Writes the initial workspace and records three agent turns through the CLI, changing files between them.
 * Returns the session file and the ids of every message.
 */
export function createRewindSession({ repo, home, workspace }) {
  const s = REWIND_SESSION;
  writeFiles(workspace, s.initial);
  const { id, file } = cli(repo, home, ['new', '--cwd', workspace, '--title', s.title]);
  const user = (text) => appendMessage(repo, home, file, 'user', text);
  const assistant = (text) => appendMessage(repo, home, file, 'assistant', text);

  const u1 = user('Add a greeting helper and use it in app.js');
  writeFiles(workspace, s.afterTurn1);
  const a1 = assistant('I added `src/greet.js` and call `greet(name)` from `src/app.js`.');

  const u2 = user('Use port 8080, drop the todo list, polish the greeting and start a changelog');
  shell(workspace, s.turn2Shell);
  writeFiles(workspace, s.afterTurn2);
  const a2 = assistant(`Ran \`${s.turn2Shell}\`, changed the greeting and wrote \`docs/CHANGES.md\`.`);

  const u3 = user('Add a test for greet');
  writeFiles(workspace, s.afterTurn3);
  const a3 = assistant('Added `test/app.test.js`.');
  return { id, file, title: s.title, users: [u1, u2, u3], assistants: [a1, a2, a3] };
}

/**
 * A session whose agent changed a file with an `edit` tool call (old and new text), as pi records it. The CLI records
 * the messages; the tool call and its result (which `append` cannot express) are appended as pi writes them, as
 * children of the last entry. Returns the ids and the old and new text.
 */
export function createEditSession({ repo, home, workspace, title = 'Rename the greeting' }) {
  writeFiles(workspace, { 'src/hello.js': "export const greeting = 'hello';\n" });
  const { id, file } = cli(repo, home, ['new', '--cwd', workspace, '--title', title]);
  const user = appendMessage(repo, home, file, 'user', 'Say "Hi there" instead of "hello"');
  const oldText = "export const greeting = 'hello';";
  const newText = "export const greeting = 'Hi there';";
  const lastId = () =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.id)
      .at(-1).id;
  const line = (entry) => appendFileSync(file, `${JSON.stringify({ ...entry, parentId: lastId(), timestamp: new Date().toISOString() })}\n`);
  const toolCall = 'e0d17c01';
  line({
    type: 'message',
    id: toolCall,
    message: {
      role: 'assistant',
      content: [{ type: 'toolCall', id: 'call-edit-1', name: 'edit', arguments: { path: 'src/hello.js', oldText, newText } }],
      timestamp: Date.now(),
    },
  });
  writeFiles(workspace, { 'src/hello.js': `${newText}\n` });
  line({
    type: 'message',
    id: 'e0d17c02',
    message: {
      role: 'toolResult',
      toolCallId: 'call-edit-1',
      toolName: 'edit',
      content: [{ type: 'text', text: 'Edited src/hello.js' }],
      isError: false,
      timestamp: Date.now(),
    },
  });
  const done = appendMessage(repo, home, file, 'assistant', 'The greeting is now "Hi there".');
  return { id, file, title, user, toolCall, done, oldText, newText };
}

/** The workspace as it is after the third turn (what Undo must bring back). */
export function rewindSessionFinalFiles() {
  const s = REWIND_SESSION;
  const files = { ...s.initial, ...s.afterTurn1, ...s.afterTurn2, ...s.afterTurn3, 'config.json': s.initial['config.json'].replace('3000', '8080') };
  delete files['notes/todo.txt'];
  return files;
}

/** The workspace as it was when the second user message was sent (what "Rewind to here" on it restores). */
export function rewindSessionFilesAtSecondMessage() {
  const s = REWIND_SESSION;
  return { ...s.initial, ...s.afterTurn1 };
}

/**
 * A session with two branches: the agent answered the second question twice (the user rewound and asked
 * again). Returns ids and both branch names as the CLI reports them.
 */
export function createBranchedSession({ repo, home, workspace, title = 'Pick a database' }) {
  writeFiles(workspace, { 'db.txt': 'sqlite\n' });
  const { id, file } = cli(repo, home, ['new', '--cwd', workspace, '--title', title]);
  const user = (text) => appendMessage(repo, home, file, 'user', text);
  const assistant = (text) => appendMessage(repo, home, file, 'assistant', text);
  const u1 = user('Which database should we use?');
  const a1 = assistant('SQLite is enough for a start.');
  const u2 = user('What about many writers?');
  writeFiles(workspace, { 'db.txt': 'postgres\n' });
  const a2 = assistant('Then pick PostgreSQL: it handles concurrent writers well.');
  const before = branchNames(repo, home, file);
  cli(repo, home, ['rewind', file, u2]);
  writeFiles(workspace, { 'db.txt': 'mysql\n' });
  const a2b = assistant('MySQL is another option for many writers.');
  const after = branchNames(repo, home, file);
  const newBranch = after.active;
  const oldBranch = before.active;
  if (!newBranch || !oldBranch || newBranch === oldBranch)
    throw new Error(`expected a new active branch after rewind, got ${JSON.stringify({ before, after })}`);
  return { id, file, title, users: [u1, u2], assistants: [a1, a2, a2b], oldBranch, newBranch, oldHead: a2, newHead: a2b };
}

/** The active branch and all branch names, from `agent-rewind branches <session id or file> --json` (BranchInfo list). */
export function branchNames(repo, home, session) {
  const r = cli(repo, home, ['branches', session]);
  const list = Array.isArray(r) ? r : (r.branches ?? []);
  return { all: list.map((b) => b.name), active: list.find((b) => b.active || b.isActive)?.name };
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The `npm start` demo: a session with file changes (one turn through a shell command), a named checkpoint and a
 * second branch, plus a smaller branched session. Everything is recorded through the CLI.
 */
export function createDemo({ repo, home, workspace }) {
  const branched = createBranchedSession({ repo, home, workspace, title: 'Pick a database' });
  const main = createRewindSession({ repo, home, workspace });
  cli(repo, home, ['checkpoint', main.file, 'tests-added']);
  // The user went back to the third question and asked for a different kind of test: a second branch.
  const [, , u3] = main.users;
  cli(repo, home, ['rewind', main.file, u3]);
  writeFiles(workspace, {
    'test/greet.test.js':
      "import test from 'node:test';\nimport assert from 'node:assert';\nimport { greet } from '../src/greet.js';\ntest('greet', () => assert.equal(greet('a'), 'Hello, a!'));\n",
  });
  appendMessage(repo, home, main.file, 'assistant', 'Added `test/greet.test.js` using `node:test` instead.');
  return { sessions: [main, branched] };
}
