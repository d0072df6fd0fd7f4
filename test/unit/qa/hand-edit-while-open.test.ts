// A session open in a long-lived process (the extension) while someone edits the file by hand and another process
// appends: the open session must not read from a stale byte offset and miss (or garble) the other process's entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '../../../src/core/session/session-manager';

function tempHome(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ar-qa-edit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Rewrites one message's text in place, as a person with an editor would. */
function editMessageText(file: string, id: string, text: string): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes(`"id":"${id}"`));
  const entry = JSON.parse(lines[at]!);
  entry.message.content = text;
  lines[at] = JSON.stringify(entry);
  writeFileSync(file, lines.join('\n'));
}

for (const [what, text] of [
  ['shorter', 'x'],
  ['longer', 'a much longer text than before, typed by hand'],
] as const) {
  test(`a line edited by hand (${what}) while open, then another writer appends: the open session sees that entry and chains after it`, async (t) => {
    const home = tempHome(t);
    const creator = SessionManager.create('/p', { home, deferUntilAssistant: false });
    await creator.transaction((s) => {
      s.appendMessage({ role: 'user', content: 'question one' }, { id: 'u1' });
      s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'answer one' }] }, { id: 'a1' });
    });
    await creator.close();
    const file = creator.sessionRef!;
    // `a` is the long-lived reader (the extension showing the session); it has read the whole file
    const a = await SessionManager.open(file, { home, deferUntilAssistant: false });
    editMessageText(file, 'u1', text);

    const b = await SessionManager.open(file, { home, deferUntilAssistant: false });
    await b.transaction((s) => s.appendMessage({ role: 'user', content: 'from b' }, { id: 'b1' }));
    await b.close();

    const mine = await a.transaction((s) => s.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'from a' }] }, { id: 'a2' }));
    assert.deepEqual(a.getLoadReport().skipped, [], 'no line of the file is unreadable');
    assert.ok(a.getEntry('b1'), "the other writer's entry was read");
    assert.equal(a.getEntry(mine)!.parentId, 'b1');
    await a.close();

    const reloaded = await SessionManager.open(file, { home });
    assert.deepEqual(
      reloaded.getEntries().map((e) => [e.id, e.parentId]),
      [
        ['u1', null],
        ['a1', 'u1'],
        ['b1', 'a1'],
        ['a2', 'b1'],
      ],
    );
    assert.deepEqual(reloaded.getLoadReport().skipped, []);
  });
}
