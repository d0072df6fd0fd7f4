// Flow 7, the keyboard: the Rewind preview opens with the focus inside it (on its first control), Tab moves on, and
// Escape cancels it (the panel closes, nothing changes on disk or in the session); the transcript's messages are one
// list the arrow keys move through; and an agent's `edit` tool call reads as a diff in the transcript.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import {
  branchNames,
  createEditSession,
  createRewindSession,
  rewindSessionFinalFiles,
  type EditSession,
  type RewindSession,
} from '../../scripts/e2e/sessions.mjs';
import { clickEntryAction, entrySelector, openTranscriptFromSidebar, previewFrame } from './support/agent-rewind';
import { readEntries, readTree } from './support/disk';
import { e2eEnv } from './support/env';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { editorTab } from './support/workbench';

interface Focused {
  id: string;
  action: string;
  index: string;
  role: string;
  tag: string;
}
/** What has the keyboard focus inside a webview's document (evaluated there; this file has no DOM types). */
const activeElement = (frame: Frame) =>
  frame.evaluate(`(() => {
    const el = document.activeElement;
    return { id: el?.id ?? '', action: el?.dataset?.action ?? '', index: el?.dataset?.index ?? '', role: el?.getAttribute('role') ?? '', tag: el?.tagName ?? '' };
  })()`) as Promise<Focused>;

describe('flow 7: keyboard', () => {
  let vs: VsCode | undefined;
  let session: RewindSession;
  let edit: EditSession;
  before(async () => {
    vs = await openVsCode({
      name: 'flow7',
      prepare: ({ workspace, home }) => {
        session = createRewindSession({ repo: e2eEnv().repo, home, workspace });
        edit = createEditSession({ repo: e2eEnv().repo, home, workspace });
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  it('flow 7: the preview takes the focus, Tab moves, Escape cancels and changes nothing', () =>
    withArtifacts(
      () => vs,
      'flow 7 preview keyboard',
      async () => {
        const { page, workspace, home } = vs!;
        const u2 = session.users[1]!;
        const filesBefore = readTree(workspace);
        const linesBefore = readEntries(session.file).length;
        const branchesBefore = branchNames(e2eEnv().repo, home, session.file);

        await openTranscriptFromSidebar(page, session.title, u2);
        await clickEntryAction(page, u2, 'rewind-to-here');
        const preview = await previewFrame(page, '[data-testid="file-row"]');
        // Focus is inside the preview, on its first control (the chosen "What to rewind" option).
        const first = await waitFor(
          'the focus in the preview',
          async () => {
            const a = await activeElement(preview);
            return a.id.startsWith('mode-') ? a : undefined;
          },
          15_000,
        );
        assert.equal(first.tag, 'INPUT');
        // The counts are read as words.
        const label = await preview.locator('[data-testid="file-row"][data-path="config.json"] .counts').getAttribute('aria-label');
        assert.equal(label, '1 insertion, 1 deletion');
        await keyMomentScreenshot(vs!, 'flow7-preview-focused');

        // The keyboard reaches the webview: Tab moves the focus to the next control.
        await page.keyboard.press('Tab');
        await waitFor(
          'Tab to move the focus',
          async () => {
            const a = await activeElement(preview);
            return a.id !== first.id || a.tag !== first.tag ? true : undefined;
          },
          10_000,
        );

        // Escape cancels: the preview closes, and nothing changed on disk or in the session file.
        await page.keyboard.press('Escape');
        await waitFor('the preview to close', async () => ((await editorTab(page, 'Rewind preview').count()) === 0 ? true : undefined), 15_000);
        assert.deepEqual(readTree(workspace), filesBefore, 'Escape changed no file');
        assert.deepEqual(readTree(workspace), { ...rewindSessionFinalFiles(), 'src/hello.js': `${edit.newText}\n` });
        assert.equal(readEntries(session.file).length, linesBefore, 'Escape wrote nothing to the session');
        assert.deepEqual(branchNames(e2eEnv().repo, home, session.file), branchesBefore);
      },
    ));

  it('flow 7: the transcript moves between messages with the arrow keys', () =>
    withArtifacts(
      () => vs,
      'flow 7 transcript keyboard',
      async () => {
        const { page } = vs!;
        const u1 = session.users[0]!;
        const transcript = await openTranscriptFromSidebar(page, session.title, u1);
        const rows = transcript.locator('#rows [role="listitem"]');
        assert.equal(await transcript.locator('#rows [role="listitem"][tabindex="0"]').count(), 1, 'the list is one Tab stop');
        await transcript.locator('#rows [role="listitem"][tabindex="0"]').focus();
        const start = Number((await activeElement(transcript)).index);
        await page.keyboard.press('ArrowDown');
        await waitFor(
          'ArrowDown to move to the next message',
          async () => (Number((await activeElement(transcript)).index) === start + 1 ? true : undefined),
          10_000,
        );
        await page.keyboard.press('End');
        const last = (await rows.count()) - 1;
        await waitFor('End to move to the last message', async () => (Number((await activeElement(transcript)).index) === last ? true : undefined), 10_000);
        await page.keyboard.press('Home');
        await waitFor('Home to move to the first message', async () => ((await activeElement(transcript)).index === '0' ? true : undefined), 10_000);
        assert.equal(await transcript.locator('#rows [role="listitem"][tabindex="0"]').getAttribute('data-index'), '0', 'the Tab stop follows');
        await keyMomentScreenshot(vs!, 'flow7-transcript-keyboard');
      },
    ));

  it('flow 7: an edit tool call is shown as a diff', () =>
    withArtifacts(
      () => vs,
      'flow 7 edit diff',
      async () => {
        const { page } = vs!;
        const transcript = await openTranscriptFromSidebar(page, edit.title, edit.toolCall);
        const row = transcript.locator(entrySelector(edit.toolCall));
        assert.equal(await row.getAttribute('data-kind'), 'toolCall');
        const diff = row.locator('pre code.language-diff');
        await diff.waitFor({ state: 'visible', timeout: 15_000 });
        const text = (await diff.textContent()) ?? '';
        assert.ok(text.includes(`-${edit.oldText}`), text);
        assert.ok(text.includes(`+${edit.newText}`), text);
        assert.match((await row.textContent()) ?? '', /src\/hello\.js/);
        await row.scrollIntoViewIfNeeded();
        await keyMomentScreenshot(vs!, 'flow7-edit-diff');
      },
    ));
});
