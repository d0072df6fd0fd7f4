// Property: truncating, garbling, deleting or duplicating random lines of the real fixtures never makes loading
// throw, and every line is accounted for: the header, a loaded entry, or a reported skip with its line number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { SessionManager } from '../../../src/core/session/session-manager';
import { MemorySessionStorage } from '../../../src/core/session/storage';
import { FIXTURE_NAMES, PI_FIXTURES } from './helpers';

type Mutation =
  | { kind: 'truncate'; line: number; at: number }
  | { kind: 'garble'; line: number; at: number; text: string }
  | { kind: 'delete'; line: number }
  | { kind: 'duplicate'; line: number }
  | { kind: 'insert'; line: number; text: string };

const mutationArb = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), line: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('garble' as const), line: fc.nat(), at: fc.nat(), text: fc.string({ maxLength: 8 }) }),
  fc.record({ kind: fc.constant('delete' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), line: fc.nat(), text: fc.oneof(fc.string({ maxLength: 30 }), fc.json({ maxDepth: 2 })) }),
);

function mutate(text: string, mutations: Mutation[], cutTail: number | undefined): string {
  const lines = text.replace(/\n$/, '').split('\n');
  for (const m of mutations) {
    const i = m.line % lines.length;
    const l = lines[i]!;
    if (m.kind === 'truncate') lines[i] = l.slice(0, m.at % (l.length + 1));
    else if (m.kind === 'garble') {
      const at = m.at % (l.length + 1);
      lines[i] = l.slice(0, at) + m.text.replace(/\n/g, ' ') + l.slice(at + m.text.length);
    } else if (m.kind === 'delete' && lines.length > 1) lines.splice(i, 1);
    else if (m.kind === 'duplicate') lines.splice(i, 0, l);
    else if (m.kind === 'insert') lines.splice(i, 0, m.text.replace(/\n/g, ' '));
  }
  let out = lines.join('\n') + '\n';
  if (cutTail !== undefined) out = out.slice(0, out.length - 1 - (cutTail % Math.min(200, out.length)));
  return out;
}

function tryParse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

async function checkLoads(original: string, mutations: Mutation[], cutTail: number | undefined): Promise<void> {
  const text = mutate(original, mutations, cutTail);
  const storage = new MemorySessionStorage();
  const file = '/s/session.jsonl';
  storage.writeTextSync(file, text);
  const s = await SessionManager.open(file, { storage, home: '/h', deferUntilAssistant: true });
  const report = s.getLoadReport();
  const nonBlank = text
    .split('\n')
    .map((l, i) => ({ l, n: i + 1 }))
    .filter(({ l }) => l.trim() !== '');
  for (const sk of report.skipped) {
    assert.ok(
      nonBlank.some(({ n }) => n === sk.line),
      `skipped line ${sk.line} is not a line of the file`,
    );
    assert.ok(sk.reason.length > 0);
  }
  assert.equal(new Set(report.skipped.map((x) => x.line)).size, report.skipped.length, 'a line was reported twice');
  if (report.backupFile && report.migratedFrom === undefined) {
    // invalid header: a new session, and the bytes are safe in the backup
    assert.equal(s.getEntries().length, 0);
    assert.equal(await storage.readText(report.backupFile), text);
  } else {
    // reading never rewrites the file, migrated or not
    assert.equal(await storage.readText(file), text);
    const firstRecord = nonBlank.map(({ l }) => tryParse(l)).find((v) => v && typeof v === 'object' && !Array.isArray(v));
    const titleLines = (firstRecord as { type?: unknown } | undefined)?.type === 'title' ? 1 : 0;
    assert.equal(titleLines + 1 + s.getEntries().length + report.skipped.length, nonBlank.length, 'a line is neither loaded nor reported');
  }
  s.buildSessionContext();
  for (const e of s.getEntries().slice(-5)) s.buildSessionContext(e.id);
}

for (const name of FIXTURE_NAMES) {
  const original = readFileSync(join(PI_FIXTURES, name), 'utf8');
  const runs = name.startsWith('before-compaction') ? 15 : 150;
  test(`corruption of ${name}: never throws, every damaged line is reported`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutationArb, { minLength: 1, maxLength: 6 }), fc.option(fc.nat(), { nil: undefined }), (m, cut) =>
        checkLoads(original, m, cut),
      ),
      { numRuns: runs },
    );
  });
}
