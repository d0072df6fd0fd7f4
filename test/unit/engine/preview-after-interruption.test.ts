// The preview says what the real rewind will do (promise 13) also after an interrupted rewind: the real one settles
// the interrupted rewind first (the store's journal recovered, a rewind the folder's log left pending taken back), and
// plans from what that leaves; the dry run and the preview plan from the same files without writing any, and say what
// is settled first. The state a kill leaves after the files moved is made here by hand (the store's rewind done,
// `pending` written as the engine writes it); a kill in the middle of the restore is made by killing the CLI at a
// step (test/faults/kill-at-step.cjs); the fault suite's kill-preview kind kills it at random steps.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { RewindLog, newStepId } from '../../../src/core/engine/rewind-log';
import { FileCheckpointer } from '../../../src/core/files';
import { fileCheckpointerOptions, parseSettings } from '../../../src/core/settings/settings';
import { fingerprint } from '../files/helpers';
import { previewOutcome as outcome } from '../files/preview-outcome';
import { cliHarness } from '../qa/cli-harness';

test('a rewind killed after its files moved: the dry run and the preview plan from the files as the next rewind leaves them, say so, and nothing is written', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ar-preview-interrupted-'));
  const home = join(dir, 'home');
  const ws = join(dir, 'ws');
  await mkdir(ws);
  const settings = parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {});
  const engine = new RewindEngine({ settings, workspaceRoots: [ws], warn: () => {} });
  try {
    const { file, id: sessionId } = await engine.newSession(ws, { title: 'interrupted' });
    await writeFile(join(ws, 'a.txt'), 'a at u1\n');
    await writeFile(join(ws, 'b.txt'), 'b at u1\nsecond\n');
    await engine.appendMessage(file, { role: 'user', content: 'first' }, { id: 'u1' });
    await writeFile(join(ws, 'a.txt'), 'a after u1\nmore\nand more\n');
    await writeFile(join(ws, 'c.txt'), 'made by the agent\n');
    await engine.appendMessage(file, { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, { id: 'a1' });
    await engine.appendMessage(file, { role: 'user', content: 'second' }, { id: 'u2' });
    await writeFile(join(ws, 'b.txt'), 'b after u2\n');
    await engine.appendMessage(file, { role: 'assistant', content: [{ type: 'text', text: 'done again' }] }, { id: 'a2' });

    // a rewind to u1 whose files moved, killed before the folder's log recorded it: `pending` says it began
    const folder = realpathSync(ws);
    const fc = new FileCheckpointer(fileCheckpointerOptions(settings, ws));
    await fc.rewindFiles(sessionId, 'u1', { anchor: { checkpointingEnabled: true, kind: 'user-message' } });
    await fc.dispose();
    const log = new RewindLog(home);
    const step = {
      id: newStepId(),
      sessionRef: file,
      sessionId,
      anchorEntryId: 'u1',
      mode: 'files' as const,
      files: false,
      undoDepth: 0,
      at: new Date().toISOString(),
    };
    await log.write(folder, { v: 2, folder, undo: [], redo: [], pending: { op: 'apply', step, startedAt: new Date().toISOString() } });
    await writeFile(join(ws, 'c.txt'), 'edited by hand after the kill\n'); // the user's now: the settle leaves it

    const before = await fingerprint(ws);
    const dry = await engine.rewindFiles(file, 'u2', { dryRun: true });
    const preview = await engine.previewRewind(file, 'u2');
    assert.deepEqual(await fingerprint(ws), before, 'the dry run and the preview write nothing');
    assert.ok((await log.read(folder)).pending, 'and settle nothing');
    const real = await engine.rewindFiles(file, 'u2');
    assert.deepEqual(outcome(real), outcome(dry), `the dry run said ${JSON.stringify(dry)}, the real run did ${JSON.stringify(real)}`);
    assert.ok(preview.files.ok);
    assert.deepEqual(outcome({ ...preview.files, canRewind: true, userModified: [] }), outcome({ ...dry, userModified: [] }), 'the preview shows the same');
    assert.deepEqual(dry.recoveryFirst, { action: 'rolled back', paths: ['a.txt', 'b.txt'] });
    assert.equal(
      preview.files.ok && preview.files.recoveryFirst,
      'An interrupted rewind is rolled back first (2 files: a.txt, b.txt); what is shown here is from after that.',
    );
    assert.deepEqual(real.filesChanged, ['b.txt'], 'rolled back to u2, then b.txt back to u2');
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'a after u1\nmore\nand more\n');
    assert.equal(await readFile(join(ws, 'c.txt'), 'utf8'), 'edited by hand after the kill\n');
  } finally {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  }
});

test(
  'a rewind killed in the middle of its restore (the CLI, at several steps): the next dry run says what the next rewind then does',
  { timeout: 10 * 60_000 },
  () => {
    const h = cliHarness();
    try {
      const ws = join(h.dir, 'ws');
      const files: Record<string, string> = {};
      for (let i = 0; i < 12; i++) files[`d${i % 3}/f${i}.txt`] = `file ${i} at u1\n`.repeat(1 + (i % 4));
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(join(ws, rel, '..'), { recursive: true });
        writeFileSync(join(ws, rel), text);
      }
      const made = h.run(['new', '--cwd', ws, '--json']);
      assert.equal(made.code, 0, made.stderr);
      const session = made.json.file as string;
      const append = (role: string, id: string) => assert.equal(h.run(['append', session, '--role', role, '--text', id, '--id', id, '--json']).code, 0);
      append('user', 'u1');
      for (let i = 0; i < 12; i += 2) writeFileSync(join(ws, `d${i % 3}/f${i}.txt`), `changed by the agent ${i}\nline\n`);
      rmSync(join(ws, 'd1/f1.txt'));
      writeFileSync(join(ws, 'd2/new.txt'), 'new\n');
      append('assistant', 'a1');
      append('user', 'u2');

      const killAt = join(__dirname, '../../faults/kill-at-step.cjs');
      const cli = (args: string[], env: Record<string, string> = {}) => {
        const r = spawnSync(process.execPath, ['--require', killAt, h.bundle, ...args, '--home', h.home], {
          cwd: h.work,
          encoding: 'utf8',
          env: { ...h.env, ...env },
        });
        let json: any;
        try {
          json = JSON.parse(r.stdout);
        } catch {
          json = undefined;
        }
        return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, json };
      };
      const template = `${h.dir}.start`;
      cpSync(h.dir, template, { recursive: true, verbatimSymlinks: true });
      try {
        const countFile = join(tmpdir(), `ar-preview-steps-${process.pid}`);
        assert.equal(cli(['rewind-files', session, 'u1', '--json'], { AGENT_REWIND_FAULT_COUNT: countFile }).code, 0);
        const steps = Number(readFileSync(countFile, 'utf8'));
        rmSync(countFile, { force: true });
        let interrupted = 0;
        for (const [k, anchor, edit] of [
          [0.5, 'u2', false],
          [0.75, 'u1', true],
          [0.9, 'u2', true],
        ] as const) {
          rmSync(h.dir, { recursive: true, force: true });
          cpSync(template, h.dir, { recursive: true, verbatimSymlinks: true });
          const step = Math.max(1, Math.round(steps * k));
          const killed = cli(['rewind-files', session, 'u1', '--json'], { AGENT_REWIND_FAULT_KILL_AT: String(step) });
          assert.equal(killed.signal, 'SIGKILL', `step ${step} of ${steps}: ${killed.stderr}`);
          if (edit && existsSync(join(ws, 'd0/f0.txt'))) writeFileSync(join(ws, 'd0/f0.txt'), 'edited by hand after the kill\n');
          const before = fingerprintSync(ws);
          const dry = cli(['rewind-files', session, anchor, '--dry-run', '--json']);
          assert.equal(dry.code, 0, dry.stderr);
          assert.deepEqual(fingerprintSync(ws), before, 'the dry run writes nothing');
          if (dry.json.recoveryFirst) interrupted++;
          const real = cli(['rewind-files', session, anchor, '--json']);
          assert.equal(real.code, 0, real.stderr);
          const why = `killed at step ${step} of ${steps}, then ${anchor}:\ndry: ${dry.stdout}\nreal: ${real.stdout}`;
          assert.deepEqual(outcome(real.json), outcome(dry.json), why);
        }
        assert.ok(interrupted > 0, 'some kill left a rewind to settle first');
      } finally {
        rmSync(template, { recursive: true, force: true });
      }
    } finally {
      h.dispose();
    }
  },
);

/** Every file below `dir` with its bytes (synchronously, between CLI runs). */
function fingerprintSync(dir: string): string[] {
  const r = spawnSync('sh', ['-c', 'find . -type f -o -type l | LC_ALL=C sort | xargs -r sha1sum'], { cwd: dir, encoding: 'utf8' });
  return r.stdout.split('\n');
}
