// Rewind to here on a Gemini CLI prompt: a new session file Gemini resumes, holding the original's lines up to just
// before the prompt, the original never changed.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AgentMessage, MessageEntry, SessionEntry } from '../../../../src/core/session/types';
import { contentText } from '../../../../src/core/transcript/transcript';
import { writeGeminiFork } from '../../../../src/core/sources/gemini/fork';
import { GeminiSource } from '../../../../src/core/sources/gemini/gemini-source';
import { readGeminiSession } from '../../../../src/core/sources/gemini/reader';
import { GeminiLog } from './builder';

const texts = (path: readonly SessionEntry[]) =>
  path.map((e) => {
    const m = (e as MessageEntry).message as AgentMessage;
    return `${m.role}: ${contentText(m.content)}`;
  });

describe('Gemini CLI fork', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-gemini-fork-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  const setup = () => {
    const home = join(dir, `h${++n}`, '.gemini');
    const log = new GeminiLog(undefined, join(dir, `ws${n}`));
    log.prompt('P1');
    log.reply('', [{ name: 'run_shell_command', args: { command: 'touch a' }, output: 'ok' }]);
    log.reply('one');
    log.resume();
    const p2 = log.prompt('P2');
    log.reply('two');
    const p3 = log.prompt('P3');
    log.reply('three');
    return { home, log, p2, p3, file: log.write(home, `ws${n}`) };
  };

  it('writes a new session holding the conversation before the prompt, every copied line byte for byte but the session id; the original is untouched', async () => {
    const { home, log, p3, file } = setup();
    const bytes = readFileSync(file);
    const mtime = statSync(file).mtimeMs;
    const session = await readGeminiSession(file, { home });
    const now = new Date('2026-11-27T11:05:09.000Z');
    const { sessionId, sessionFile } = await writeGeminiFork(session, p3, { sessionId: '0f0e0d0c-1111-4222-8333-444455556666', now });
    assert.equal(sessionId, '0f0e0d0c-1111-4222-8333-444455556666');
    assert.equal(sessionFile, join(dirname(file), 'session-2026-11-27T11-05-0f0e0d0c.jsonl'));
    assert.deepEqual(readFileSync(file), bytes);
    assert.equal(statSync(file).mtimeMs, mtime);
    const lines = readFileSync(sessionFile, 'utf8').trimEnd().split('\n');
    const meta = JSON.parse(lines[0]!);
    assert.equal(meta.sessionId, sessionId);
    assert.equal(meta.forkedFrom, log.sessionId);
    assert.equal(meta.projectHash, JSON.parse(log.lines[0]!).projectHash);
    const cut = log.lines.findIndex((l) => l.includes(`"id":"${p3}"`));
    const expected = log.lines.slice(1, cut).map((l) => (l.includes('"sessionId"') ? l.replace(log.sessionId, sessionId) : l));
    assert.deepEqual(lines.slice(1), expected);
    const fork = await readGeminiSession(sessionFile, { home });
    assert.equal(fork.sessionId, sessionId);
    assert.equal(fork.title, 'Fork: P1');
    assert.equal(fork.forkedFrom?.sessionId, log.sessionId);
    assert.deepEqual(texts(fork.getPath()), ['user: P1', 'assistant: ', 'toolResult: ok', 'assistant: one', 'user: P2', 'assistant: two']);
    // the copied prompts are the origin's: their snapshots are looked for in the origin's session
    const opened = await new GeminiSource({ home }).open(sessionFile);
    const p1 = session.userPrompts()[0]!.entryId;
    assert.equal(opened.isInherited(p1), true);
    assert.deepEqual(opened.originCheckpointsOf(p1), [{ sessionId: log.sessionId, keys: [] }]);
    const listed = await new GeminiSource({ home }).list({ workspaceRoots: [log.root], settings: {} as never, warn: () => {} });
    assert.deepEqual(
      listed.map((l) => [l.sessionId, l.fork?.originSessionId, l.title]).sort(),
      [
        [log.sessionId, undefined, 'P1'],
        [sessionId, log.sessionId, 'Fork: P1'],
      ].sort(),
    );
  });

  it('a prompt rewound away by /rewind forks from the conversation it was sent in', async () => {
    const { home, log, p2 } = setup();
    log.rewindTo(p2);
    log.prompt('P2 instead');
    log.reply('other');
    const file = log.write(home, `ws${n}`);
    const session = await readGeminiSession(file, { home });
    const { sessionFile } = await writeGeminiFork(session, p2);
    assert.deepEqual(texts((await readGeminiSession(sessionFile, { home })).getPath()), ['user: P1', 'assistant: ', 'toolResult: ok', 'assistant: one']);
  });

  it('refuses the first prompt, an id that is not a prompt, and writes nothing then', async () => {
    const { home, log, file } = setup();
    const session = await readGeminiSession(file, { home });
    const before = readdirSync(dirname(file));
    const first = session.userPrompts()[0]!.entryId;
    await assert.rejects(writeGeminiFork(session, first), /first prompt/);
    await assert.rejects(writeGeminiFork(session, 'nope'), /not a user prompt/);
    await assert.rejects(writeGeminiFork(session, log.contextId), /not a user prompt/);
    assert.deepEqual(readdirSync(dirname(file)), before);
    const source = new GeminiSource({ home });
    assert.match(JSON.stringify(source.forkNote(session, first)), /first message/);
  });
});
