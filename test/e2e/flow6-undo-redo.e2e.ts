// Flow 6, Undo and Redo of a "conversation and files" rewind: the notification after Confirm says what Undo will do;
// Undo puts the files back and returns to the branch the rewind left (tree, status bar, session file), and its
// notification offers Redo, which applies the rewind again; "Undo Last Rewind" from the palette acts on the current
// session without asking, even with another, newer session in the workspace.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import {
  appendMessage,
  branchNames,
  cli,
  createRewindSession,
  rewindSessionFilesAtSecondMessage,
  rewindSessionFinalFiles,
  type RewindSession,
} from '../../scripts/e2e/sessions.mjs';
import { branchRow, clickEntryAction, entrySelector, openTranscriptFromSidebar, previewFrame } from './support/agent-rewind';
import { readTree } from './support/disk';
import { e2eEnv } from './support/env';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { clearNotifications, clickNotificationButton, runCommand, statusBarItem, waitForNotification, webviewFrame } from './support/workbench';

describe('flow 6: Undo and Redo of a rewind', () => {
  let vs: VsCode | undefined;
  let session: RewindSession;
  before(async () => {
    vs = await openVsCode({
      name: 'flow6',
      prepare: ({ workspace, home }) => {
        const repo = e2eEnv().repo;
        session = createRewindSession({ repo, home, workspace });
        // A newer session in the same folder: Undo must still act on the one the user rewound, without asking.
        const other = cli(repo, home, ['new', '--cwd', workspace, '--title', 'Another task']) as { file: string };
        appendMessage(repo, home, other.file, 'user', 'Unrelated question', { snapshot: false });
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  /** The open transcript shows the branch with (or without) the later turns. */
  const transcriptShows = async (page: VsCode['page'], laterTurns: boolean) => {
    const u2 = session.users[1]!;
    const a3 = session.assistants[2]!;
    await waitFor(
      `the transcript ${laterTurns ? 'with' : 'without'} the later turns`,
      async () => {
        const frame = await webviewFrame(page, entrySelector(u2), 30_000);
        return (await frame.locator(entrySelector(a3)).count()) === (laterTurns ? 1 : 0) ? true : undefined;
      },
      30_000,
    );
  };

  const filesAre = (workspace: string, expected: Record<string, string>, what: string) =>
    waitFor(what, () => isDeepStrictEqual(readTree(workspace), expected), 30_000).catch(() => assert.deepEqual(readTree(workspace), expected, what));

  it('flow 6: Confirm (conversation and files), Undo from the notification, Redo, Undo from the palette', () =>
    withArtifacts(
      () => vs,
      'flow 6 undo redo',
      async () => {
        const { page, workspace, home } = vs!;
        const repo = e2eEnv().repo;
        const u2 = session.users[1]!;
        const before = branchNames(repo, home, session.file);
        assert.ok(before.active, 'the session has an active branch');

        await openTranscriptFromSidebar(page, session.title, u2);
        await clickEntryAction(page, u2, 'rewind-to-here');
        await previewFrame(page, '[data-testid="file-row"]');
        const frame = await webviewFrame(page, '[data-action="confirm"]');
        await frame.locator('input[name="mode"][value="all"]').first().check();
        await frame.locator('[data-action="confirm"]').first().click();

        // The notification says exactly what its Undo will do: the files and the branch.
        const rewound = await waitForNotification(page, /Rewound the conversation/);
        const text = ((await rewound.textContent()) ?? '').replace(/\s+/g, ' ');
        assert.match(text, /Undo will put the files back as they were before the rewind and return to branch "[^"]+"/, text);
        assert.ok(text.includes(`return to branch "${before.active}"`), text);
        await filesAre(workspace, rewindSessionFilesAtSecondMessage(), 'the files to be rewound');
        const rewoundTo = branchNames(repo, home, session.file).active!;
        assert.notEqual(rewoundTo, before.active, 'a new branch is active');
        await statusBarItem(page, `${session.title} · ${rewoundTo}`).waitFor({ state: 'visible', timeout: 30_000 });
        await transcriptShows(page, false);
        await keyMomentScreenshot(vs!, 'flow6-rewound-undo-says-what');

        // Undo: files back, the old branch active again (session file, tree, status bar); the new branch stays.
        await clickNotificationButton(rewound, 'Undo');
        const undone = await waitForNotification(page, /Undid the last rewind/);
        await filesAre(workspace, rewindSessionFinalFiles(), 'Undo to put the files back');
        const afterUndo = branchNames(repo, home, session.file);
        assert.equal(afterUndo.active, before.active, 'Undo returned to the branch the rewind left');
        assert.ok(afterUndo.all.includes(rewoundTo), 'the branch the rewind made stays');
        await statusBarItem(page, `${session.title} · ${before.active}`).waitFor({ state: 'visible', timeout: 30_000 });
        await branchRow(page, session.title, before.active!);
        assert.match((await undone.textContent()) ?? '', new RegExp(`now on branch "${before.active}"`));
        await transcriptShows(page, true);
        await keyMomentScreenshot(vs!, 'flow6-undone-offers-redo');

        // Redo from that notification: the rewind again, files and branch.
        await clickNotificationButton(undone, 'Redo');
        await waitForNotification(page, /Redid the rewind/);
        await filesAre(workspace, rewindSessionFilesAtSecondMessage(), 'Redo to rewind the files again');
        assert.equal(branchNames(repo, home, session.file).active, rewoundTo, 'Redo made the rewound branch active again');
        await statusBarItem(page, `${session.title} · ${rewoundTo}`).waitFor({ state: 'visible', timeout: 30_000 });
        await transcriptShows(page, false);
        await keyMomentScreenshot(vs!, 'flow6-redone');

        // "Undo Last Rewind" from the palette: the current session, no question asked.
        await clearNotifications(page);
        await runCommand(page, 'Agent Rewind: Undo Last Rewind');
        await waitForNotification(page, /Undid the last rewind/);
        assert.equal(
          await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: 'Another task' }).count(),
          0,
          'no session quick pick',
        );
        await filesAre(workspace, rewindSessionFinalFiles(), 'the palette Undo to put the files back');
        assert.equal(branchNames(repo, home, session.file).active, before.active);
        await statusBarItem(page, `${session.title} · ${before.active}`).waitFor({ state: 'visible', timeout: 30_000 });
      },
    ));
});
