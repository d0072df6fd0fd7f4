// `agent-rewind tree <session> | head`: the reader closes the pipe early. The CLI must stop quietly (the work is done;
// only the rest of the printout is unwanted), never die with an unhandled EPIPE stack trace.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { cliHarness, type CliHarness } from './cli-harness';

let h: CliHarness;
before(() => {
  h = cliHarness();
});
after(() => h.dispose());

function runIntoClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [h.bundle, ...args, '--home', h.home], { cwd: h.work, env: h.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // like `head -c 1`: read the first chunk, then close our end
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

test('output cut short by the reader (| head): no stack trace, exit 0', async () => {
  const { id, file } = h.newSession();
  const lines: string[] = [];
  let parent: string | null = null;
  for (let i = 0; i < 20_000; i++) {
    const eid = `e${i.toString(16).padStart(7, '0')}`;
    lines.push(
      JSON.stringify({
        type: 'message',
        id: eid,
        parentId: parent,
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: i % 2 ? 'assistant' : 'user', content: `message ${i}` },
      }),
    );
    parent = eid;
  }
  appendFileSync(file, lines.join('\n') + '\n');
  for (const args of [
    ['tree', id],
    ['tree', id, '--json'],
    ['context', id, '--json'],
  ]) {
    const r = await runIntoClosedPipe(args);
    assert.doesNotMatch(r.stderr, /EPIPE|Unhandled|at /, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.code, 0, args.join(' '));
  }
});
