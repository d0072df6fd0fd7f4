// Flow 1, "Rewind to here": a session recorded through the CLI in which the agent changed, created and deleted
// files (partly through a shell command). From the sidebar: open the transcript, "Rewind to here" on the second
// user message, check the preview's files and +/- counts, open a file's diff, Confirm, check the files and the new
// branch, then Undo and check the files are back.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import {
  branchNames,
  createRewindSession,
  REWIND_SESSION,
  rewindSessionFilesAtSecondMessage,
  rewindSessionFinalFiles,
  type RewindSession,
} from '../../scripts/e2e/sessions.mjs';
import { branchRow, clickEntryAction, entrySelector, focusTab, openTranscriptFromSidebar, previewFileRows, previewFrame } from './support/agent-rewind';
import { pathOfLastEntry, readTree } from './support/disk';
import { e2eEnv } from './support/env';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { clickNotificationButton, editorTab, statusBarItem, waitForNotification, webviewFrame } from './support/workbench';

describe('flow 1: Rewind to here', () => {
  let vs: VsCode | undefined;
  let session: RewindSession;
  before(async () => {
    vs = await openVsCode({
      name: 'flow1',
      prepare: ({ workspace, home }) => {
        session = createRewindSession({ repo: e2eEnv().repo, home, workspace });
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  it('flow 1: preview of the second user message, diff, Confirm, new branch, Undo', () =>
    withArtifacts(
      () => vs,
      'flow 1 rewind to here',
      async () => {
        const { page, workspace, home } = vs!;
        const u2 = session.users[1]!;
        const a2 = session.assistants[1]!;
        const a3 = session.assistants[2]!;
        assert.deepEqual(readTree(workspace), rewindSessionFinalFiles(), 'the scripted session left the expected workspace');
        const branchesBefore = branchNames(e2eEnv().repo, home, session.file);

        // Open the transcript from the sidebar; every message of the session is there.
        const transcript = await openTranscriptFromSidebar(page, session.title, u2);
        for (const id of [...session.users, ...session.assistants]) {
          assert.equal(await transcript.locator(entrySelector(id)).count(), 1, `message ${id} is shown`);
        }
        assert.equal(await transcript.locator(entrySelector(u2)).getAttribute('data-kind'), 'user');

        // "Rewind to here" on the second user message opens the dry-run preview: nothing changes yet.
        await clickEntryAction(page, u2, 'rewind-to-here');
        const preview = await previewFrame(page, '[data-testid="file-row"]');
        const rows = await previewFileRows(preview);
        const expected = Object.entries(REWIND_SESSION.expectedAtSecondMessage)
          .map(([path, c]) => ({ path, ...c }))
          .sort((a, b) => a.path.localeCompare(b.path));
        assert.deepEqual(rows, expected, 'the preview lists every changed file with its +/- counts');
        const totals = ((await preview.locator('[data-testid="totals"]').first().textContent()) ?? '').replace(/\s+/g, ' ');
        const numbers = (totals.match(/\d+/g) ?? []).map(Number);
        for (const n of [rows.length, 7, 5]) assert.ok(numbers.includes(n), `totals "${totals}" show ${n}`);
        assert.deepEqual(readTree(workspace), rewindSessionFinalFiles(), 'the preview changed nothing on disk');
        await keyMomentScreenshot(vs!, 'flow1-rewind-preview');

        // Clicking a file opens VS Code's own diff editor for it.
        await preview.locator('[data-testid="file-row"][data-path="config.json"]').first().click();
        await editorTab(page, 'config.json').waitFor({ state: 'visible', timeout: 30_000 });
        const diff = page.locator('.monaco-diff-editor').first();
        // Left: the file at the message (port 3000); right: the file now (port 8080, changed by the agent's shell command).
        await diff.locator('.editor.original .view-lines').filter({ hasText: '3000' }).waitFor({ state: 'visible', timeout: 30_000 });
        await diff.locator('.editor.modified .view-lines').filter({ hasText: '8080' }).waitFor({ state: 'visible', timeout: 30_000 });
        await keyMomentScreenshot(vs!, 'flow1-file-diff');
        // Both sides are read-only: typing into "now" changes neither the editor nor the file (an editable side with
        // revert arrows changed the real file on a stray click).
        await diff.locator('.editor.modified .view-lines').first().click();
        await page.keyboard.type('STRAY');
        await page.waitForTimeout(500);
        assert.equal(await diff.locator('.editor.modified .view-lines').filter({ hasText: 'STRAY' }).count(), 0, 'the "now" side takes no typing');
        assert.deepEqual(readTree(workspace), rewindSessionFinalFiles(), 'the diff changed nothing on disk');

        // Back to the preview: conversation and files, Confirm.
        if (
          !(await preview
            .locator('[data-action="confirm"]')
            .first()
            .isVisible()
            .catch(() => false))
        )
          await focusTab(page, 'Rewind preview');
        const confirmFrame = await webviewFrame(page, '[data-action="confirm"]');
        await confirmFrame.locator('input[name="mode"][value="all"]').first().check();
        await confirmFrame.locator('[data-action="confirm"]').first().click();
        const toast = await waitForNotification(page, /Rewound/);
        // The diff opened from the preview is closed: its "now" side would show the files before the rewind.
        await waitFor('the diff editor to close', async () => ((await editorTab(page, 'config.json').count()) === 0 ? true : undefined), 15_000);

        // Files are as they were when the second message was sent.
        await waitFor('the files to be rewound', () => isDeepStrictEqual(readTree(workspace), rewindSessionFilesAtSecondMessage()), 15_000).catch(() => {});
        assert.deepEqual(readTree(workspace), rewindSessionFilesAtSecondMessage(), 'files on disk are back at the second message');

        // A new branch whose head is the second user message, in the session file and in the tree.
        const branchesAfter = branchNames(e2eEnv().repo, home, session.file);
        assert.ok(
          branchesAfter.active && !branchesBefore.all.includes(branchesAfter.active),
          `a new active branch (before ${branchesBefore.all}, after ${branchesAfter.all})`,
        );
        const path = pathOfLastEntry(session.file);
        assert.ok(path.includes(u2), "the session file's last entry continues from the second user message");
        assert.ok(!path.includes(a2) && !path.includes(a3), 'the later turns are no longer on the active path');
        await branchRow(page, session.title, branchesAfter.active!);
        await statusBarItem(page, `${session.title} · ${branchesAfter.active}`).waitFor({ state: 'visible', timeout: 30_000 });
        // The transcript follows the new branch: the later turns are gone from it.
        await focusTab(page, `Transcript: ${session.title}`);
        const after = await webviewFrame(page, entrySelector(u2));
        await waitFor('the transcript to show the new branch', async () => (await after.locator(entrySelector(a3)).count()) === 0, 30_000);
        await keyMomentScreenshot(vs!, 'flow1-rewound');

        // Undo brings the files back as they were before the rewind.
        await clickNotificationButton(toast, 'Undo');
        await waitFor('Undo to restore the files', () => isDeepStrictEqual(readTree(workspace), rewindSessionFinalFiles()), 30_000).catch(() => {});
        assert.deepEqual(readTree(workspace), rewindSessionFinalFiles(), 'Undo restored every file');
      },
    ));
});
