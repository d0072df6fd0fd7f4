// The real OpenCode CLI (1.18.33), offline against our fake Chat Completions API, with our plugin installed by
// `agent-rewind hooks install opencode --user` (dist/cli.js): three prompts in one session (`opencode run`, then
// `opencode run --session <id>` twice) whose shell commands create, delete, move and chmod files and whose write and
// edit tools change them, in a folder that is not a git repository (OpenCode's own snapshots need git; ours do not).
// Then, through the CLI: the session is listed for the workspace, `context` shows the prompts, `rewind-files` to the
// 2nd prompt gives back exactly the workspace as it was when that prompt was sent (every file's bytes and mode),
// `undo-rewind` puts the end state back, and OpenCode's database holds the same rows (and bytes) as before. Last,
// "Rewind to here" through the engine forks the conversation with OpenCode's own server API (the fork listed as a
// fork of the session), and `opencode run --session <fork>` continues it from before the 2nd prompt.
//
// Run: node scripts/run-agent-tests.mjs opencode
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureOpenCode } from '../../scripts/agents/opencode.mjs';
import { RewindEngine } from '../../src/core/engine/engine';
import { FileCheckpointer } from '../../src/core/files';
import { parseSettings } from '../../src/core/settings/settings';
import { openOpenCodeDb } from '../../src/core/sources/opencode/db-rows';
import { OpenCodeSource } from '../../src/core/sources/opencode/opencode-source';
import { startFakeOpenAI, type FakeOpenAI } from './support/fake-openai';
import { openCodeEnv, runOpenCode, type OpenCodeEnv } from './support/opencode';
import { assertCliBuilt, runOurCli } from './support/our-cli';
import { agentTestFolders, removeAgentTestFolder, stateOf } from './support/test-workspace';

/** Every row of every table of OpenCode's database as committed (read the way our reader reads it: never opened by
 *  SQLite itself). */
async function dbRows(dataDir: string): Promise<string> {
  const db = await openOpenCodeDb(join(dataDir, 'opencode.db'));
  try {
    const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")[0]!.values.map((v) => String(v[0]));
    return JSON.stringify(tables.map((t) => [t, db.exec(`SELECT * FROM "${t}" ORDER BY rowid`)[0]?.values ?? []]));
  } finally {
    db.close();
  }
}

/** The bytes of OpenCode's database files. */
function dbBytes(dataDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dataDir).filter((n) => n.startsWith('opencode.db')))
    out[name] = createHash('sha256')
      .update(readFileSync(join(dataDir, name)))
      .digest('hex');
  return out;
}

describe('the real OpenCode CLI, rewound', { timeout: 900_000 }, () => {
  let dir: string;
  let bin: string;
  let fake: FakeOpenAI;
  let oc: OpenCodeEnv;
  let ws: string;
  let arHome: string;
  let sessionId: string;
  let atPrompt2: Record<string, string>;
  let atEnd: Record<string, string>;
  let env: NodeJS.ProcessEnv;

  const cli = (args: string[]) => runOurCli(args, { cwd: ws, env });

  before(async () => {
    bin = await ensureOpenCode();
    assertCliBuilt();
    ({ dir, ws, arHome } = agentTestFolders('ar-opencode-e2e-'));
    fake = await startFakeOpenAI();
    oc = openCodeEnv(join(dir, 'oc'), fake.baseUrl);
    env = { ...process.env, ...oc.env, AGENT_REWIND_HOME: arHome, AGENT_REWIND_OPENCODE_COMMAND: bin };
    const installed = cli(['hooks', 'install', 'opencode', '--user', '--json']);
    assert.equal(installed.status, 0, installed.stderr);
    assert.equal(JSON.parse(installed.stdout).action, 'added');
    assert.ok(existsSync(join(oc.configDir, 'plugins', 'agent-rewind.js')));
    const run = async (args: string[], prompt: string) => {
      const r = await runOpenCode(bin, args, prompt, { cwd: ws, oc, env: { AGENT_REWIND_HOME: arHome } });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      return r;
    };

    // prompt 1: the shell creates files, a folder and an executable
    fake.push(
      [
        {
          tool: 'bash',
          args: {
            command: "mkdir -p sub && printf 'a\\n' > sub/a.txt && printf 'one\\n' > one.txt && chmod 755 one.txt && printf 'bye\\n' > gone.txt",
            description: 'make files',
          },
        },
      ],
      [{ text: 'Set up.' }],
    );
    const r1 = await run([], 'make the files');
    sessionId = r1.sessionId!;
    assert.ok(sessionId);

    atPrompt2 = stateOf(ws);
    // prompt 2: the shell deletes, moves and chmods; write adds a file, edit changes one
    fake.push(
      [{ tool: 'bash', args: { command: 'rm gone.txt && mv one.txt two.txt && chmod 600 sub/a.txt', description: 'shuffle' } }],
      [{ tool: 'write', args: { filePath: join(ws, 'new.txt'), content: 'brand new\n' } }],
      [{ tool: 'read', args: { filePath: join(ws, 'sub', 'a.txt') } }],
      [{ tool: 'edit', args: { filePath: join(ws, 'sub', 'a.txt'), oldString: 'a', newString: 'A changed' } }],
      [{ text: 'Changed.' }],
    );
    await run(['--session', sessionId], 'change them');

    // prompt 3: the shell deletes and adds
    fake.push([{ tool: 'bash', args: { command: "rm two.txt && printf 'three\\n' > three.txt", description: 'more' } }], [{ text: 'Done.' }]);
    await run(['--session', sessionId], 'one more');
    atEnd = stateOf(ws);
    assert.equal(fake.unscripted.length, 0);
    assert.notDeepEqual(atEnd, atPrompt2);

    await turnEndsWritten(sessionId, 3);
  });

  /** The turn-end hook runs detached after OpenCode exits: waits (up to 30 s) until `count` turn-end snapshots of the
   *  session are in the store, so that no hook is still writing when the store is read or the folder removed. */
  async function turnEndsWritten(session: string, count: number): Promise<void> {
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: arHome });
    try {
      for (let i = 0; i < 300; i++) {
        const kinds = (await fc.listSnapshots(session)).map((s) => s.kind);
        if (kinds.filter((k) => k === 'turn-end').length >= count) return;
        await new Promise((ok) => setTimeout(ok, 100));
      }
      assert.fail(`fewer than ${count} turn-end snapshots of ${session} after 30 s`);
    } finally {
      await fc.dispose();
    }
  }
  after(async () => {
    await fake?.close();
    removeAgentTestFolder(dir);
  });

  it('the plugin fired at every prompt and turn end: no problem logged, a snapshot under each prompt id', async () => {
    const log = join(arHome, 'logs', 'opencode-hooks.log');
    assert.equal(existsSync(log) ? readFileSync(log, 'utf8') : '', '');
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: arHome });
    try {
      const snaps = await fc.listSnapshots(sessionId);
      assert.equal(snaps.filter((s) => s.kind === 'user-message').length, 3);
      assert.equal(snaps.filter((s) => s.kind === 'turn-end').length, 3);
      assert.ok(snaps.every((s) => /^msg_[A-Za-z0-9]+(:turn-end)?$/.test(s.anchorId)));
    } finally {
      await fc.dispose();
    }
  });

  it('`sessions` lists it for the workspace and `context` shows the three prompts', () => {
    const listed = cli(['sessions', '--cwd', ws, '--json']);
    assert.equal(listed.status, 0, listed.stderr);
    const sessions = JSON.parse(listed.stdout) as { id: string; source: string; ref: string; file: string; cwd: string }[];
    assert.deepEqual(
      sessions.map((s) => [s.id, s.source, s.cwd]),
      [[sessionId, 'opencode', ws]],
    );
    assert.equal(sessions[0]!.ref, `${join(oc.dataDir, 'opencode.db')}#${sessionId}`);
    assert.equal(sessions[0]!.file, join(oc.dataDir, 'opencode.db'));
    const context = cli(['context', sessionId, '--json']);
    assert.equal(context.status, 0, context.stderr);
    const messages = (JSON.parse(context.stdout) as { messages: { role: string; content: { type: string; text?: string }[] }[] }).messages;
    const prompts = messages.filter((m) => m.role === 'user').map((m) => m.content.map((b) => b.text).join(''));
    assert.deepEqual(prompts, ['make the files', 'change them', 'one more']);
    assert.equal(messages.filter((m) => m.role === 'toolResult').length, 6);
  });

  it("`rewind-files` to prompt 2 gives back exactly the workspace of then; `undo-rewind` the end state; OpenCode's database is untouched", async () => {
    const rowsBefore = await dbRows(oc.dataDir);
    const bytesBefore = dbBytes(oc.dataDir);
    const source = new OpenCodeSource({ dataDir: oc.dataDir });
    const view = await source.open(source.refOf(sessionId));
    await source.dispose();
    const p2 = view.userPrompts()[1]!;
    assert.equal(p2.text, 'change them');

    const rewound = cli(['rewind-files', sessionId, p2.entryId, '--json']);
    assert.equal(rewound.status, 0, rewound.stderr);
    assert.deepEqual(stateOf(ws), atPrompt2);

    const undone = cli(['undo-rewind', sessionId, '--json']);
    assert.equal(undone.status, 0, undone.stderr);
    assert.deepEqual(stateOf(ws), atEnd);

    assert.equal(await dbRows(oc.dataDir), rowsBefore, "OpenCode's rows");
    assert.deepEqual(dbBytes(oc.dataDir), bytesBefore, "OpenCode's database files");
  });

  it('Rewind to here forks the conversation with OpenCode itself, and `opencode run --session <fork>` continues it', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, oc.env, { AGENT_REWIND_OPENCODE_COMMAND: bin });
    const engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? arHome : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
      // as the registry makes it (sources/opencode/agent.ts): recording its forks in our home
      foreignSources: () => [new OpenCodeSource({ dataDir: oc.dataDir, recordsHome: arHome })],
    });
    try {
      const ref = `${join(oc.dataDir, 'opencode.db')}#${sessionId}`;
      const view = await new OpenCodeSource({ dataDir: oc.dataDir }).open(ref);
      const p2 = view.userPrompts()[1]!;
      // OpenCode's state (its locks) and the user's config folder, which the fork's server must leave as they are: it
      // once left its npm install's lock there, and the next `opencode` waited a minute for it to go stale
      const locks = join(oc.root, 'state', 'opencode', 'locks');
      const lockNames = () => (existsSync(locks) ? readdirSync(locks).sort() : []);
      const [locksBefore, configBefore] = [lockNames(), stateOf(oc.configDir)];
      const outcome = await engine.applyRewind(ref, p2.entryId, 'all');
      assert.deepEqual(lockNames(), locksBefore, "OpenCode's locks");
      assert.deepEqual(stateOf(oc.configDir), configBefore, "the user's OpenCode config folder");
      assert.deepEqual(stateOf(ws), atPrompt2);
      assert.ok(outcome.fork);
      assert.notEqual(outcome.fork.sessionId, sessionId);
      // OpenCode's fork names no origin (parent_id is a task's child session): it is linked through our record
      const db = await openOpenCodeDb(join(oc.dataDir, 'opencode.db'));
      try {
        assert.deepEqual(db.exec('SELECT parent_id FROM session WHERE id = ?', [outcome.fork.sessionId])[0]?.values, [[null]]);
      } finally {
        db.close();
      }
      const listed = await new OpenCodeSource({ dataDir: oc.dataDir, recordsHome: arHome }).list({
        settings: parseSettings(() => undefined, {}),
        workspaceRoots: [ws],
        warn: () => {},
      });
      assert.deepEqual(listed.find((l) => l.sessionId === outcome.fork!.sessionId)?.fork, { originSessionId: sessionId });
      assert.equal(listed.find((l) => l.sessionId === sessionId)?.fork, undefined);

      fake.push([{ text: 'Continuing from the fork.' }]);
      const seen = fake.requests.length;
      const r4 = await runOpenCode(bin, ['--session', outcome.fork.sessionId], 'try prompt two differently', {
        cwd: ws,
        oc,
        env: { AGENT_REWIND_HOME: arHome },
      });
      assert.equal(r4.code, 0, r4.stderr + r4.stdout);
      assert.equal(r4.sessionId, outcome.fork.sessionId);
      await turnEndsWritten(outcome.fork.sessionId, 1);
      const sent = JSON.stringify(fake.requests.slice(seen).find((r) => r.replyIndex >= 0)!.body?.messages);
      assert.ok(sent.includes('make the files') && sent.includes('try prompt two differently'), sent);
      assert.ok(!sent.includes('change them'), 'the fork starts before prompt 2');

      const fork = await new OpenCodeSource({ dataDir: oc.dataDir, recordsHome: arHome }).open(outcome.fork.sessionRef);
      assert.equal(fork.forkedFrom?.sessionId, sessionId);
      assert.deepEqual(
        fork.userPrompts().map((p) => p.text),
        ['make the files', 'try prompt two differently'],
      );
      await engine.undoLastRewind(ref);
      assert.deepEqual(stateOf(ws), atEnd);
    } finally {
      await engine.dispose();
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});
