// Agent blame in the editor (issue 27, item 5) without VS Code: the line lookup (the editor's text matched to the
// saved file's blame), what the status item and the hover say, and that it stays off the typing path (one engine read
// per file until an invalidation, a cursor that moves on drops the older answer).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ownersOfText, type DescribedBlame, type DescribedOwner, type LineOwner } from '../../../src/core/engine';
import { lineBlameMarkdown, lineBlameText } from '../../../src/extension/blame/blame-text';
import { CursorBlame, LineBlameCache, type BlameDocument } from '../../../src/extension/blame/line-blame-cache';

const NOW = new Date('2026-11-27T12:00:00Z');
const claude: DescribedOwner = {
  by: 'turn',
  sessionId: 'c1',
  prompt: 'p-1',
  messageId: 'm-1',
  sessionRef: '/claude/c1.jsonl',
  agent: 'claude',
  session: { sessionRef: '/claude/c1.jsonl', source: 'claude', title: 'Parser work' },
  promptInfo: { messageId: 'm-1', text: 'fix the parser', sentAt: '2026-11-27T11:57:00Z' },
};
const you: DescribedOwner = { by: 'user' };

function blameOf(lines: [string, DescribedOwner][]): DescribedBlame {
  return { root: '/ws', path: 'a.ts', lines: lines.map(([text, owner]) => ({ text, owner })) };
}

const show = (owners: LineOwner[]) => owners.map((o) => (o.by === 'turn' ? o.promptInfo?.text : o.by));

describe('agent blame: the editor’s lines matched to the saved file’s blame', () => {
  const saved = blameOf([
    ['a', you],
    ['b', claude],
    ['c', claude],
  ]);

  it('an unchanged document has the blame’s owners line for line (a final newline adds no line)', () => {
    assert.deepEqual(show(ownersOfText(saved, 'a\nb\nc\n')), ['user', 'fix the parser', 'fix the parser']);
    assert.deepEqual(show(ownersOfText(saved, 'a\r\nb\r\nc')), ['user', 'fix the parser', 'fix the parser'], 'CRLF and no final newline');
  });

  it('lines typed and not saved are "unsaved"; lines below them keep their owners; deleted lines are gone', () => {
    assert.deepEqual(show(ownersOfText(saved, 'new\na\nc\nb2\n')), ['unsaved', 'user', 'fix the parser', 'unsaved']);
    assert.deepEqual(show(ownersOfText(saved, '')), []);
    assert.deepEqual(show(ownersOfText(blameOf([]), 'x\n')), ['unsaved'], 'a file the blame has no line of');
  });
});

describe('agent blame: what the status item and the hover say', () => {
  it('an agent’s line: agent, prompt text and when, with the prompt to open', () => {
    const t = lineBlameText(claude, NOW);
    assert.equal(t.status, '$(hubot) Claude Code · “fix the parser” · 3 min ago');
    assert.deepEqual(t.prompt, { sessionRef: '/claude/c1.jsonl', entryId: 'm-1' });
    assert.equal(t.byAgent, true);
  });

  it('a long prompt is clipped in the status bar, not in the summary', () => {
    const long = 'x'.repeat(100);
    const t = lineBlameText({ ...claude, promptInfo: { messageId: 'm-1', text: long } }, NOW);
    assert.equal(t.status, `$(hubot) Claude Code · “${'x'.repeat(39)}…”`);
    assert.ok(t.summary.includes(long));
  });

  it('a prompt whose message was not found is named by its id; its agent by the owner’s', () => {
    const t = lineBlameText({ by: 'turn', sessionId: 's', prompt: 'anchor-1', agent: 'agent-rewind' }, NOW);
    assert.equal(t.status, '$(hubot) agent-rewind');
    assert.equal(t.summary, 'agent-rewind · prompt anchor-1');
    assert.equal(t.prompt, undefined);
  });

  it('you, an unsaved edit, several sessions', () => {
    assert.deepEqual(
      ([you, { by: 'unsaved' }, { by: 'several', sessions: ['a', 'b'] }] as LineOwner[]).map((o) => {
        const t = lineBlameText(o, NOW);
        return [t.status, t.byAgent];
      }),
      [
        ['$(account) You', false],
        ['$(edit) You (unsaved)', false],
        ['$(organization) 2 sessions at once', true],
      ],
    );
  });

  it('the hover links to the prompt and the file history with their arguments, and escapes the texts', () => {
    const md = lineBlameMarkdown({ ...claude, promptInfo: { messageId: 'm-1', text: 'use *stars* [here]' } }, NOW, { path: '/ws/a.ts' });
    assert.match(md, /^\*\*Agent blame:\*\* Claude Code · “use \\\*stars\\\* \\\[here\\\]”/);
    assert.match(md, /Session: Parser work/);
    const links = [...md.matchAll(/\]\(command:([\w.]+)\?([^)]*)\)/g)].map((m) => [m[1], JSON.parse(decodeURIComponent(m[2]!))]);
    assert.deepEqual(links, [
      ['agentRewind.openTranscript', [{ sessionRef: '/claude/c1.jsonl', entryId: 'm-1' }]],
      ['agentRewind.fileHistory', [{ path: '/ws/a.ts' }]],
    ]);
    assert.doesNotMatch(lineBlameMarkdown(you, NOW, {}), /openTranscript/, 'your own line has no prompt to open');
  });
});

describe('agent blame: off the typing path', () => {
  function doc(text: string, version = 1): BlameDocument & { text: string } {
    return {
      path: '/ws/a.ts',
      version,
      text,
      getText() {
        return this.text;
      },
    };
  }
  const saved = blameOf([
    ['a', you],
    ['b', claude],
  ]);

  it('reads the blame once per file; a new document version only matches the lines again; invalidate reads again', async () => {
    const asked: string[] = [];
    const cache = new LineBlameCache({ describedBlame: async (p) => (asked.push(p), saved) });
    const d = doc('a\nb\n');
    assert.equal((await cache.ownerAt(d, 1))?.by, 'turn');
    assert.equal((await cache.ownerAt(d, 0))?.by, 'user');
    d.text = 'x\na\nb\n';
    d.version = 2;
    assert.equal((await cache.ownerAt(d, 0))?.by, 'unsaved', 'the new version’s lines, without asking the engine');
    assert.equal((await cache.ownerAt(d, 2))?.by, 'turn');
    assert.equal(asked.length, 1);
    cache.invalidate();
    await cache.ownerAt(d, 0);
    assert.equal(asked.length, 2);
  });

  it('a blame read before an invalidation is not kept; an engine error gives no blame and is reported', async () => {
    let release!: () => void;
    let reads = 0;
    const cache = new LineBlameCache({
      describedBlame: async () => {
        reads++;
        if (reads === 1) await new Promise<void>((r) => (release = r));
        return saved;
      },
    });
    const d = doc('a\nb\n');
    const first = cache.ownerAt(d, 1);
    await new Promise((r) => setImmediate(r));
    cache.invalidate();
    release();
    await first;
    await cache.ownerAt(d, 1);
    assert.equal(reads, 2, 'the answer read across the invalidation was not reused');

    const errors: string[] = [];
    const failing = new LineBlameCache(
      {
        describedBlame: async () => {
          throw new Error('not inside a workspace folder');
        },
      },
      (path, e) => errors.push(`${path}: ${e.message}`),
    );
    assert.equal(await failing.ownerAt(d, 0), undefined);
    assert.deepEqual(errors, ['/ws/a.ts: not inside a workspace folder']);
  });

  it('asks only once the cursor rests; a cursor that moved on drops the older answer', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let reads = 0;
    let release!: () => void;
    const cache = new LineBlameCache({
      describedBlame: async () => {
        reads++;
        await new Promise<void>((r) => (release = r));
        return saved;
      },
    });
    const shown: (string | undefined)[] = [];
    const cursor = new CursorBlame(cache, (r) => shown.push(r && `${r.line}:${r.owner.by}`), 400);
    const d = doc('a\nb\n');
    cursor.moved(d, 0);
    t.mock.timers.tick(100);
    cursor.moved(d, 1);
    t.mock.timers.tick(399);
    assert.equal(reads, 0, 'nothing is read while the cursor moves');
    t.mock.timers.tick(1);
    assert.equal(reads, 1);
    cursor.moved(d, 0); // moves again while the read runs: the answer for line 1 must not show
    release();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(shown, []);
    t.mock.timers.tick(400);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(shown, ['0:user'], 'only the resting cursor’s line, from the blame already read');
    assert.equal(reads, 1);
    cursor.moved(undefined, 0);
    assert.deepEqual(shown, ['0:user', undefined], 'no document (not a workspace file, blame off): nothing shown');
  });
});
