// The launcher's Perl hook client on its own, against a stand-in hook endpoint: the request it sends (the secret from
// its file, the folder, the agent's stdin byte for byte) and what it tells the shell for each outcome, including the
// time limit, which the launcher tests cannot wait for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PERL_HOOK_CLIENT } from '../../../src/core/service/perl-hook-client';

const perl = process.platform !== 'win32' && (process.env.CI === 'true' || spawnSync('sh', ['-c', 'command -v perl']).status === 0);

interface Seen {
  method?: string;
  url?: string;
  body?: Buffer;
}

/** Runs the client against a server answering with `answer` (or never, for undefined); its stdout and what came in. */
async function run(answer: ((req: IncomingMessage, res: ServerResponse) => void) | 'none' | 'dead', stdin: Buffer, limit = 5) {
  const dir = mkdtempSync(join(tmpdir(), 'arw-perl-'));
  const sock = join(dir, 'hook.sock');
  const secret = join(dir, 'secret');
  writeFileSync(secret, 's3cret\n', { mode: 0o600 });
  const seen: Seen = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      Object.assign(seen, { method: req.method, url: req.url, body: Buffer.concat(chunks) });
      if (typeof answer === 'function') answer(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(sock, r));
  if (answer === 'dead') await new Promise<void>((r) => server.close(() => r()));
  try {
    const p = spawn('perl', ['-e', PERL_HOOK_CLIENT, sock, secret, '/the/project dir', 'claude', String(limit)], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    p.stdout.on('data', (c: Buffer) => out.push(c));
    p.stderr.on('data', (c) => (err += c));
    // stdin held open for 'dead': a client that read it would wait here until the test times out
    if (answer === 'dead') p.stdin.write(stdin);
    else p.stdin.end(stdin);
    const code = await new Promise<number | null>((r) => p.on('close', r));
    p.stdin.destroy();
    return { code, out: Buffer.concat(out), err, seen };
  } finally {
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const reply = (status: number) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end('{}');
};

// bytes a shell variable would mangle: no trailing newline kept by $(…), a NUL, invalid UTF-8
const input = Buffer.concat([Buffer.from('{"hook_event_name":"UserPromptSubmit","prompt":"héllo"}\n\n'), Buffer.from([0, 0xff, 0x0a])]);

test('200, 400 and 500 end the hook (D); the body is the secret from its file, the folder and stdin byte for byte', { skip: !perl }, async () => {
  for (const status of [200, 400, 500]) {
    const r = await run(reply(status), input);
    assert.equal(r.out.toString(), 'D\n', `${status}: ${r.err}`);
    assert.equal(r.code, 0);
    assert.equal(r.seen.method, 'POST');
    assert.equal(r.seen.url, '/hook/claude');
    assert.deepEqual(r.seen.body, Buffer.concat([Buffer.from('s3cret\n/the/project dir\n'), input]));
  }
});

test('401 is U; 409, 413, 503 and a cut connection are F followed by the stdin, unchanged, for the Node hook', { skip: !perl }, async () => {
  assert.equal((await run(reply(401), input)).out.toString(), 'U\n');
  for (const status of [409, 413, 503]) assert.deepEqual((await run(reply(status), input)).out, Buffer.concat([Buffer.from('F\n'), input]), `${status}`);
  const cut = await run((req) => req.socket.destroy(), input);
  assert.deepEqual(cut.out, Buffer.concat([Buffer.from('F\n'), input]));
});

test('nobody listening on the socket: it says nothing and leaves stdin unread', { skip: !perl, timeout: 10_000 }, async () => {
  const r = await run('dead', input);
  assert.equal(r.out.length, 0);
  assert.equal(r.code, 0);
});

test('no answer within the time limit: T, and the hook ends', { skip: !perl, timeout: 20_000 }, async () => {
  const r = await run('none', input, 1);
  assert.equal(r.out.toString(), 'T\n');
});
