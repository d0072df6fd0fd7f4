// One rewind log per workspace folder (issue 21): every rewind, from the extension (the engine's API) or the CLI, is
// undone and redone in the order it happened. The reproduction: a files-and-conversation rewind to u2, then a
// conversation-only rewind to u1; undo must take the latest first (back to main-v2, files unchanged), then the one
// before it (files back, branch main); redo replays them in order.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { bundledCli } from '../files/helpers';

const ROOT = resolve(__dirname, '../../..');

describe('one rewind log: undo and redo in the order rewinds happened, from any front-end', () => {
  let dir: string;
  let home: string;
  let ws: string;
  let engine: RewindEngine;
  let file: string;
  const read = () => readFile(join(ws, 'a.txt'), 'utf8');
  const active = async () => (await engine.branches(file)).find((b) => b.isActive)!.name;
  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, [bundledCli(), ...args, '--home', home, '--json'], {
      encoding: 'utf8',
      cwd: ROOT,
      env: { ...process.env, AGENT_REWIND_SERVICE: 'off' },
    });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-rewind-order-'));
    home = join(dir, 'home');
    ws = join(dir, 'ws');
    await mkdir(ws);
    engine = new RewindEngine({
      settings: parseSettings((k) => (k === 'home' ? home : k === 'includePiSessions' ? false : undefined), {}),
      workspaceRoots: [ws],
      warn: () => {},
    });
    file = await engine.createSession(ws, { title: 'order' });
    let n = 0;
    for (const turn of ['u1', 'u2', 'u3']) {
      await writeFile(join(ws, 'a.txt'), `${turn}\n`);
      await engine.appendMessage(file, { role: 'user', content: turn }, { id: turn });
      await writeFile(join(ws, 'a.txt'), `after ${turn}\n`);
      await engine.appendMessage(file, { role: 'assistant', content: [{ type: 'text', text: `turn ${++n}` }] }, { id: `a${n}` });
    }
  });
  after(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('the engine (the extension): undo takes the latest rewind, then the one before it; redo replays them in order', async () => {
    await engine.applyRewind(file, 'u2', 'all');
    assert.deepEqual([await active(), await read()], ['main-v2', 'u2\n']);
    const forked = await engine.fork(file, 'u1');
    assert.equal(forked.name, 'main-v2-v2');

    const first = await engine.undoLastRewind(file);
    assert.deepEqual([first.branch, first.filesChanged, await read()], ['main-v2', [], 'u2\n'], 'the conversation rewind, files unchanged');
    const second = await engine.undoLastRewind(file);
    assert.deepEqual([second.branch, second.filesChanged, await read()], ['main', ['a.txt'], 'after u3\n']);

    const redo1 = await engine.redoRewind(file);
    assert.deepEqual([redo1.branch, await read()], ['main-v2', 'u2\n'], 'the first rewind first');
    const redo2 = await engine.redoRewind(file);
    assert.deepEqual([redo2.branch, await read()], ['main-v2-v2', 'u2\n']);
    await assert.rejects(engine.redoRewind(file), /no undone rewind to redo/);
    // back to where the test started
    await engine.undoLastRewind(file);
    await engine.undoLastRewind(file);
    assert.deepEqual([await active(), await read()], ['main', 'after u3\n']);
  });

  it('the CLI: the reproduction of issue 21 (rewind --files, rewind, then undo-rewind twice and redo-rewind twice)', async () => {
    const filesAndConversation = cli('rewind', file, 'u2', '--files');
    assert.deepEqual([filesAndConversation.branch.name, await read()], ['main-v3', 'u2\n']);
    assert.equal(cli('rewind', file, 'u1').name, 'main-v3-v2');
    const undo1 = cli('undo-rewind', file);
    assert.deepEqual([undo1.branch, undo1.filesChanged, await read()], ['main-v3', [], 'u2\n'], 'the latest rewind, files unchanged');
    const undo2 = cli('undo-rewind', file);
    assert.deepEqual([undo2.branch, undo2.filesChanged, await read()], ['main', ['a.txt'], 'after u3\n']);
    const redo1 = cli('redo-rewind', file);
    assert.deepEqual([redo1.branch, await read()], ['main-v3', 'u2\n']);
    const redo2 = cli('redo-rewind', file);
    assert.deepEqual([redo2.branch, await read()], ['main-v3-v2', 'u2\n']);
    cli('undo-rewind', file);
    cli('undo-rewind', file);
    assert.deepEqual([await active(), await read()], ['main', 'after u3\n']);
  });

  it('mixing the front-ends keeps one order: a CLI rewind after an extension rewind is undone first, by either', async () => {
    await engine.applyRewind(file, 'u2', 'all'); // the extension
    assert.equal(await active(), 'main-v4');
    // then the CLI (a.txt is not as the last turn left it, so it is rewound on purpose)
    const fromCli = cli('rewind', file, 'u1', '--files', '--overwrite-user-modified');
    assert.deepEqual([fromCli.branch.name, await read()], ['main-v4-v2', 'u1\n']);

    const undo1 = await engine.undoLastRewind(file); // the extension undoes the CLI's rewind
    assert.deepEqual([undo1.branch, await read()], ['main-v4', 'u2\n']);
    const undo2 = cli('undo-rewind', file); // and the CLI the extension's
    assert.deepEqual([undo2.branch, await read()], ['main', 'after u3\n']);
    const redo1 = cli('redo-rewind', file);
    assert.deepEqual([redo1.branch, await read()], ['main-v4', 'u2\n']);
    const redo2 = await engine.redoRewind(file);
    assert.deepEqual([redo2.branch, await read()], ['main-v4-v2', 'u1\n']);
  });
});
