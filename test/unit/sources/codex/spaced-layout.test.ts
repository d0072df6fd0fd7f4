// A rollout written with spaces after the colons (`"type": "event_msg"`, what a pretty-printing tool or another
// writer produces) is valid JSON lines and reads as the compact layout does: the same conversation, and the lines the
// reader never uses are still ruled out by their first bytes instead of parsed. Before, only the compact `"type":"`
// was recognised and its search ran from every line to the end of the file: 8,000 such turns took 77 s to open
// (bench/codex-reader.bench.ts has the spaced row; the fault suite bounds a real open).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCodexSession } from '../../../../src/core/sources/codex';
import { typeAt } from '../../../../src/core/sources/codex/lines';
import { Rollout } from './builder';

/** One line, with a space after every colon and comma (strings keep their escaped newlines, so it stays one line). */
const spaced = (line: string) => JSON.stringify(JSON.parse(line), null, 1).replace(/\n\s*/g, ' ');

function sample(): Rollout {
  const r = new Rollout();
  for (let i = 0; i < 20; i++) {
    r.turn(`prompt ${i}`).push('world_state', { full: i === 0, state: { cwd: '/work/proj' } });
    r.shell(`echo ${i}`, `${i}`).push('token_usage_record', { usage: { input_tokens: i } });
    r.event({ type: 'token_count', info: { total: i } });
    r.event({ type: 'item_completed', turn_id: r.turnId, item: { type: 'AgentMessage', id: `a${i}` } });
    r.say(`reply ${i}`).end();
  }
  return r;
}

/** JSON.parse calls made while `fn` runs. */
async function parsesDuring(fn: () => Promise<unknown>): Promise<number> {
  const real = JSON.parse;
  let calls = 0;
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    calls++;
    return real(text, reviver);
  }) as typeof JSON.parse;
  try {
    await fn();
  } finally {
    JSON.parse = real;
  }
  return calls;
}

describe('Codex rollouts with spaces after the colons', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-codex-spaced-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('read as the compact layout: the same entries, and the unused lines ruled out unparsed just as often', async () => {
    const compactHome = join(dir, 'compact');
    const spacedHome = join(dir, 'spaced');
    const compactFile = sample().write(compactHome);
    const spacedFile = sample().write(spacedHome);
    const text = sample().toString();
    await writeFile(
      spacedFile,
      text
        .split('\n')
        .map((l) => (l ? spaced(l) : l))
        .join('\n'),
    );
    assert.match(text.split('\n')[1]!, /"type":"event_msg"/);

    const compact = await readCodexSession(compactFile, { home: compactHome });
    const other = await readCodexSession(spacedFile, { home: spacedHome });
    const shape = (s: typeof compact) => s.getEntries().map((e) => [e.id, e.parentId, e.type, JSON.stringify(e).length]);
    assert.deepEqual(shape(other), shape(compact));
    assert.deepEqual(other.getLoadReport().skipped, []);

    const compactParses = await parsesDuring(() => readCodexSession(compactFile, { home: compactHome }));
    const spacedParses = await parsesDuring(() => readCodexSession(spacedFile, { home: spacedHome }));
    assert.equal(spacedParses, compactParses, 'world_state, token_usage_record and unused events are skipped by their first bytes in both layouts');
  });

  it('the kind is looked for near the line start only, never in the lines after it', () => {
    const line1 = `{"timestamp": "t", "payload": {"x": "${'y'.repeat(200)}"}, "type": "world_state"}`;
    const line2 = '{"timestamp":"t","type":"world_state","payload":{}}';
    const buf = Buffer.from(`${line1}\n${line2}\n`);
    assert.equal(typeAt(buf, 0, line1.length), undefined, "the key past the window is not taken, nor the next line's");
    assert.deepEqual(typeAt(buf, line1.length + 1, buf.length - 1)?.value, 'world_state');
    assert.equal(typeAt(Buffer.from('{"timestamp": "type", "type" :\t"event_msg"}'), 0, 44)?.value, 'event_msg');
    assert.equal(typeAt(Buffer.from('{"type": 5}'), 0, 11), undefined);
  });
});
