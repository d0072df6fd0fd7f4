// Hunk selection from a terminal (issue 27, item 3): `rewind-files --dry-run --json` lists each text file's hunks with
// their numbers and the hash of the bytes they were computed from; `--hunks PATH:N,...[@HASH]` takes back exactly those
// hunks and nothing else, undo-rewind and redo-rewind are exact, and a file changed since its hash is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleCli, bundleThreadsInto, fingerprint, readTree, tempBase, writeTree } from '../files/helpers';
import { cliRunOf } from '../qa/cli-harness';

let base: Awaited<ReturnType<typeof tempBase>>;
let cli: string;

before(async () => {
  base = await tempBase('arw-hunks-cli-');
  cli = join(base.dir, 'cli.js');
  bundleCli(cli);
  bundleThreadsInto(base.dir);
});
after(() => base.cleanup());

const anchorText = 'alpha\r\nbeta\r\ngamma\r\ndelta\r\nepsilon';
const agentText = 'alpha\r\nBETA\r\ngamma\r\ndelta\r\nEPSILON\r\nzeta';

async function scenario() {
  const ws = join(base.dir, `ws-${Math.random().toString(36).slice(2)}`);
  const home = `${ws}-home`;
  await writeTree(ws, { 'src/app.txt': anchorText, 'b.txt': 'b0\n', 'logo.bin': 'x\0y' });
  await chmod(join(ws, 'src/app.txt'), 0o600);
  const env = { ...process.env, AGENT_REWIND_HOME: home, HOME: base.dir };
  const run = (args: string[], cwd = ws) => cliRunOf(spawnSync(process.execPath, [cli, ...args, '--home', home], { encoding: 'utf8', env, cwd }));
  const { id } = run(['new', '--cwd', ws, '--json']).json as { id: string };
  assert.equal(run(['append', id, '--role', 'user', '--text', 'edit things', '--id', 'u1', '--json']).code, 0);
  await writeFile(join(ws, 'src/app.txt'), agentText);
  await writeFile(join(ws, 'b.txt'), 'b1\n');
  await writeFile(join(ws, 'logo.bin'), 'x\0z');
  assert.equal(run(['append', id, '--role', 'assistant', '--text', 'done', '--id', 'r1', '--json']).code, 0);
  return { ws, id, run };
}

interface ListedFile {
  path: string;
  hunksHash?: string;
  hunksUnavailable?: string;
  hunks?: { index: number; anchorStart: number; nowStart: number; insertions: number; deletions: number; lines: { kind: string; text: string }[] }[];
}

test('rewind-files --dry-run --json lists hunks by number; --hunks takes back exactly those; undo and redo are exact', async () => {
  const { ws, id, run } = await scenario();
  const dry = run(['rewind-files', id, 'u1', '--dry-run', '--json']);
  assert.equal(dry.code, 0, dry.stderr);
  const files = (dry.json as { files: ListedFile[] }).files;
  const app = files.find((f) => f.path === 'src/app.txt')!;
  assert.match(app.hunksHash ?? '', /^[0-9a-f]{64}$/);
  assert.deepEqual(
    app.hunks?.map((h) => ({
      index: h.index,
      anchorStart: h.anchorStart,
      nowStart: h.nowStart,
      insertions: h.insertions,
      deletions: h.deletions,
      lines: h.lines,
    })),
    [
      {
        index: 1,
        anchorStart: 2,
        nowStart: 2,
        insertions: 1,
        deletions: 1,
        lines: [
          { kind: '-', text: 'beta' },
          { kind: '+', text: 'BETA' },
        ],
      },
      {
        index: 2,
        anchorStart: 5,
        nowStart: 5,
        insertions: 2,
        deletions: 1,
        lines: [
          { kind: '-', text: 'epsilon' },
          { kind: '+', text: 'EPSILON' },
          { kind: '+', text: 'zeta' },
        ],
      },
    ],
  );
  assert.equal(files.find((f) => f.path === 'logo.bin')?.hunksUnavailable, 'binary: whole file only');
  assert.match(run(['rewind-files', id, 'u1', '--dry-run']).stdout, /restore {2}src\/app\.txt {2}\+3 −2 {2}\(2 hunks: --hunks src\/app\.txt:1,…\)/);

  const before = await fingerprint(ws);
  const now = await readTree(ws);
  // typed relative to a subfolder, as a terminal user would from there
  const partDry = run(['rewind-files', id, 'u1', '--dry-run', '--hunks', `app.txt:2@${app.hunksHash}`], join(ws, 'src'));
  assert.equal(partDry.code, 0, partDry.stderr);
  assert.match(
    partDry.stdout,
    /would rewind 1 file \(2 lines added since taken out, 1 line removed since put back\)\n {2}restore {2}src\/app\.txt {2}\+2 −1 {2}\(hunk 2 of 2\)/,
  );
  const real = run(['rewind-files', id, 'u1', '--hunks', `app.txt:2@${app.hunksHash}`, '--json'], join(ws, 'src'));
  assert.equal(real.code, 0, real.stderr);
  const partial = 'alpha\r\nBETA\r\ngamma\r\ndelta\r\nepsilon';
  assert.deepEqual(await readTree(ws), { ...now, 'src/app.txt': partial }, 'only hunk 2 came back, nothing else');
  const partialPrint = await fingerprint(ws);
  assert.ok(
    partialPrint.some((l) => l.startsWith('src/app.txt file 600 ')),
    'its mode is kept',
  );

  assert.equal(run(['undo-rewind', id]).code, 0);
  assert.deepEqual(await fingerprint(ws), before, 'undo: bytes and modes as before');
  assert.equal(run(['redo-rewind', id]).code, 0);
  assert.deepEqual(await fingerprint(ws), partialPrint, 'redo: the same partial result');
  assert.equal(await readFile(join(ws, 'src/app.txt'), 'latin1'), partial);
  assert.equal(run(['undo-rewind', id]).code, 0);
  assert.deepEqual(await fingerprint(ws), before);
});

test('--hunks with the hash of bytes the file no longer has is refused and nothing changes; a bad --hunks is a usage error', async () => {
  const { ws, id, run } = await scenario();
  const app = ((run(['rewind-files', id, 'u1', '--dry-run', '--json']).json as { files: ListedFile[] }).files ?? []).find((f) => f.path === 'src/app.txt')!;
  await writeFile(join(ws, 'src/app.txt'), agentText + '\r\neta');
  const before = await fingerprint(ws);
  const r = run(['rewind-files', id, 'u1', '--hunks', `src/app.txt:1@${app.hunksHash}`, '--only', 'b.txt']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /src\/app\.txt changed since its hunks were shown.*Nothing was rewound/);
  assert.deepEqual(await fingerprint(ws), before);
  const bad = run(['rewind-files', id, 'u1', '--hunks', 'src/app.txt']);
  assert.notEqual(bad.code, 0, bad.stderr);
  assert.match(bad.stderr, /--hunks src\/app\.txt: expected PATH:N/);
  const outside = run(['rewind-files', id, 'u1', '--hunks', '../x.txt:1']);
  assert.notEqual(outside.code, 0);
  assert.match(outside.stderr, /--hunks \.\.\/x\.txt: not a path inside the workspace/);
  assert.deepEqual(await fingerprint(ws), before);
});
