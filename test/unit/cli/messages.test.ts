// What the CLI says, as a user reads it (issue 23 item 3, issue 22 item 5): errors on stderr with exit 1 and nothing on
// stdout, dry run or not; a restore told as what it did to each file; the folder it worked in named; a conversation
// rewind that says what it did; typos answered with the option or command meant; --help that explains.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliHarness, type CliHarness } from '../qa/cli-harness';
import { commands } from '../../../src/cli/commands/index';
import { commandHelp } from '../../../src/cli/command-help';

let h: CliHarness;
let ws: string;
let id: string;
const u: Record<string, string> = {};

before(() => {
  h = cliHarness();
  ws = join(h.work, 'ws');
  mkdirSync(ws);
  id = h.run(['new', '--cwd', ws, '--json']).json.id;
  writeFileSync(join(ws, 'a.txt'), 'a0\n');
  writeFileSync(join(ws, 'data.csv'), 'old\n');
  const say = (role: string, text: string) => {
    const r = h.run(['append', id, '--role', role, '--text', text, '--json'], { cwd: ws });
    assert.equal(r.code, 0, r.stderr);
    return r.json.id as string;
  };
  u.one = say('user', 'one');
  // the agent edits a.txt and renames data.csv during its turn
  writeFileSync(join(ws, 'a.txt'), 'a1\n');
  renameSync(join(ws, 'data.csv'), join(ws, 'data-old.csv'));
  say('assistant', 'done');
  u.two = say('user', 'two');
  say('assistant', 'nothing to do');
});
after(() => h.dispose());

test('a dry run that cannot preview is an error like the real run: stderr, exit 1, nothing on stdout (also with --json)', () => {
  for (const extra of [['--dry-run'], ['--dry-run', '--json'], [], ['--json']]) {
    const r = h.run(['rewind-files', id, 'no-such-message', ...extra], { cwd: ws });
    assert.equal(r.code, 1, `${extra.join(' ')}: ${r.stdout}`);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'agent-rewind rewind-files: There is no message no-such-message in this session.\n');
  }
});

test('the restore summary says what it did to each file: deleted, re-created, restored; the dry run what it would do', () => {
  const dry = h.run(['rewind-files', id, u.one!, '--dry-run'], { cwd: ws });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, new RegExp(`^in ${ws}: would rewind 3 files`));
  assert.match(dry.stdout, /\n {2}restore +a\.txt/);
  assert.match(dry.stdout, /\n {2}delete +data-old\.csv/);
  assert.match(dry.stdout, /\n {2}re-create +data\.csv/);
  assert.ok(existsSync(join(ws, 'data-old.csv')), 'a dry run changes nothing');

  const real = h.run(['rewind-files', id, u.one!], { cwd: ws });
  assert.equal(real.code, 0, real.stderr);
  assert.match(real.stdout, new RegExp(`^in ${ws}: rewound 3 files`));
  assert.match(real.stdout, /\n {2}restored +a\.txt/);
  assert.match(real.stdout, /\n {2}deleted +data-old\.csv/);
  assert.match(real.stdout, /\n {2}re-created +data\.csv/);
  assert.doesNotMatch(real.stdout, /\n {2}(added|modified|deleted data\.csv)|\b1 files/);
  assert.equal(readFileSync(join(ws, 'data.csv'), 'utf8'), 'old\n');

  const undo = h.run(['undo-rewind', id], { cwd: ws });
  assert.equal(undo.code, 0, undo.stderr);
  assert.match(undo.stdout, /^put back 3 files\n/);
  // redo after rewind-files and undo-rewind applies it again
  const redo = h.run(['redo-rewind', id], { cwd: ws });
  assert.equal(redo.code, 0, redo.stderr);
  assert.equal(readFileSync(join(ws, 'data.csv'), 'utf8'), 'old\n');
  assert.equal(h.run(['undo-rewind', id], { cwd: ws }).code, 0);
});

test('run from another folder, rewind-files names the folder it works in; a --workspace that does not hold the session is refused, naming both', () => {
  const elsewhere = h.run(['rewind-files', id, u.two!, '--dry-run'], { cwd: h.work });
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  assert.match(elsewhere.stdout, new RegExp(`^in ${ws}: `));

  const other = join(h.work, 'other');
  mkdirSync(other, { recursive: true });
  for (const extra of [['--dry-run'], []]) {
    const r = h.run(['rewind-files', id, u.two!, '--workspace', other, ...extra], { cwd: h.work });
    assert.equal(r.code, 1, r.stdout);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`the session worked in ${ws}, which is not inside --workspace ${other}`));
    assert.doesNotMatch(r.stderr, /checkpointing was off|this window/);
  }
});

test('rewind without --files says which branch it made and that the files stayed', () => {
  const r = h.run(['rewind', id, u.two!], { cwd: ws });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^now on branch main-v2 \(head [^)]+\); the branch you left stays\nthe files are as they were: add --files/);
  assert.equal(h.run(['undo-rewind', id], { cwd: ws }).code, 0);
});

test('a mistyped option or command is answered with the one meant; usage errors exit 2 with nothing on stdout', () => {
  const opt = h.run(['rewind-files', id, u.one!, '--dryrun'], { cwd: ws });
  assert.equal(opt.code, 2);
  assert.equal(opt.stdout, '');
  assert.match(opt.stderr, /^agent-rewind rewind-files: unknown option --dryrun \(did you mean --dry-run\?\)\nusage: /);
  const cmd = h.run(['rewnid'], { cwd: ws });
  assert.equal(cmd.code, 2);
  assert.match(cmd.stderr, /unknown command "rewnid" \(did you mean rewind\?\)/);
  const far = h.run(['rewind-files', id, u.one!, '--zzzzzz'], { cwd: ws });
  assert.doesNotMatch(far.stderr, /did you mean/);
});

test('<command> --help explains the command, every option it takes and gives an example; every command has help', async () => {
  const r = h.run(['rewind-files', '--help']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^usage: agent-rewind rewind-files /);
  assert.match(r.stdout, /\n {2}--dry-run +change nothing/);
  assert.match(r.stdout, /\n {2}--overwrite-user-modified +also rewind/);
  assert.match(r.stdout, /\nexamples:\n {2}agent-rewind rewind-files /);
  for (const entry of commands) {
    const command = await entry.load();
    if (command.raw) continue;
    const help = commandHelp[entry.name];
    assert.ok(help, `${entry.name} has help`);
    for (const option of Object.keys(command.options ?? {})) assert.ok(help.options?.[option], `${entry.name} --${option} is explained`);
    assert.ok(help.examples.length > 0, `${entry.name} has an example`);
  }
});
