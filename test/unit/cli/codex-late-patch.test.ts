// A file Codex's apply_patch wrote that reaches the disk only after the turn's Stop hook took its snapshot lands on the
// folder's timeline outside every turn, where it read as the user's. Codex's rollout names it in the turn's patch, so
// the CLI's dry run, `history` and `blame` give it to that prompt, the default rewind takes it back, and the user's own
// edit made in the same moments (a file no patch named) stays the user's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliRunOf } from '../qa/cli-harness';
import { Rollout } from '../sources/codex/builder';
import { bundleCli } from '../files/helpers';
import { readCodexSession } from '../../../src/core/sources/codex';

const THREAD = '01a20aad-cccc-7000-8000-000000000003';
let dir: string;
let cli: string;
let ws: string;
let codexHome: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ar-cli-codex-late-'));
  cli = join(dir, 'cli.cjs');
  bundleCli(cli);
  ws = join(dir, 'ws');
  codexHome = join(dir, 'codexhome');
  mkdirSync(ws);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ ...process.env, HOME: dir, AGENT_REWIND_HOME: join(dir, 'home'), CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: join(dir, 'no-claude') });
const run = (args: string[]) => cliRunOf(spawnSync(process.execPath, [cli, ...args], { cwd: ws, encoding: 'utf8', env: env(), input: '' }));
function hook(event: string, turnId: string, extra: Record<string, unknown> = {}): void {
  const input = { session_id: THREAD, turn_id: turnId, cwd: ws, hook_event_name: event, ...extra };
  const r = spawnSync(process.execPath, [cli, 'hook', 'codex'], { cwd: ws, encoding: 'utf8', env: env(), input: JSON.stringify(input) });
  assert.equal(r.status, 0, r.stderr);
}
const read = (rel: string) => (existsSync(join(ws, rel)) ? readFileSync(join(ws, rel), 'utf8') : undefined);

test("a file Codex's apply_patch wrote after the Stop hook is the prompt's in the dry run, history and blame; the default rewind takes it back", async () => {
  writeFileSync(join(ws, 'notes.txt'), 'my notes\n');
  hook('UserPromptSubmit', 't1', { prompt: 'add the parser' });
  hook('Stop', 't1', { stop_hook_active: false });
  // after the Stop hook: the patch's file reaches the disk, and the user edits notes.txt by hand meanwhile
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'src', 'parser.ts'), 'export const parse = 1;\n');
  writeFileSync(join(ws, 'notes.txt'), 'my notes, edited by hand\n');
  hook('UserPromptSubmit', 't2', { prompt: 'now the tests' });
  hook('Stop', 't2', { stop_hook_active: false });

  const r = new Rollout(THREAD, ws).turn('add the parser', 't1');
  r.patch('*** Begin Patch\n*** Add File: src/parser.ts\n+export const parse = 1;\n*** End Patch\n', {
    [join(ws, 'src', 'parser.ts')]: { type: 'add', content: 'export const parse = 1;\n' },
  });
  r.say('added').end();
  r.turn('now the tests', 't2').say('none yet').end();
  const file = r.write(codexHome);
  const view = await readCodexSession(file, { home: codexHome });
  const prompt = view.getEntries().find((e) => e.type === 'message' && (e.message as { role: string }).role === 'user')!.id;

  const dry = run(['rewind-files', THREAD, prompt, '--dry-run', '--json']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(
    dry.json.files.map((f: { path: string; changedBy: string; kept: boolean }) => [f.path, f.changedBy, f.kept]),
    [
      ['notes.txt', 'user', true],
      ['src/parser.ts', 'this-session', false],
    ],
  );
  const owner = (o: { by: string; sessionId?: string; messageId?: string }) => (o.by === 'turn' ? `${o.sessionId}/${o.messageId}` : o.by);
  const history = run(['history', join(ws, 'src', 'parser.ts'), '--json']);
  assert.equal(history.code, 0, history.stderr);
  assert.deepEqual(
    history.json.entries.map((e: { owner: { by: string }; status: string }) => [owner(e.owner), e.status]),
    [[`${THREAD}/${prompt}`, 'added']],
  );
  const blame = run(['blame', join(ws, 'notes.txt'), '--json']);
  assert.equal(blame.code, 0, blame.stderr);
  assert.deepEqual(
    blame.json.lines.map((l: { owner: { by: string } }) => owner(l.owner)),
    ['user'],
  );

  const real = run(['rewind-files', THREAD, prompt, '--json']);
  assert.equal(real.code, 0, real.stderr);
  assert.equal(read('src/parser.ts'), undefined, "the prompt's own file is taken back");
  assert.equal(read('notes.txt'), 'my notes, edited by hand\n', "the user's edit is kept");
  const undo = run(['undo-rewind', THREAD, '--json']);
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(read('src/parser.ts'), 'export const parse = 1;\n');
});
