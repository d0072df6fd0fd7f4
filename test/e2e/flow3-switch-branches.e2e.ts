// Flow 3, "Switch branches from the sidebar": the transcript, the status bar and the session file (the path of its
// last entry, which pi and oh-my-pi read as the active one) follow a switch made in the tree. Also: a session
// written by another process appears in the tree without a reload.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { branchNames, cli, createBranchedSession, type BranchedSession } from '../../scripts/e2e/sessions.mjs';
import { branchRow, entrySelector, openTranscriptFromSidebar, sessionRow, switchBranchInTree } from './support/agent-rewind';
import { pathOfLastEntry } from './support/disk';
import { e2eEnv } from './support/env';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { statusBarItem, treeRow, waitForNotification, webviewFrame } from './support/workbench';

describe('flow 3: Switch branches from the sidebar', () => {
  let vs: VsCode | undefined;
  let s: BranchedSession;
  before(async () => {
    vs = await openVsCode({
      name: 'flow3',
      prepare: ({ workspace, home }) => {
        s = createBranchedSession({ repo: e2eEnv().repo, home, workspace });
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  it('flow 3: switching to the other branch in the tree moves the transcript, the status bar and the session file', () =>
    withArtifacts(
      () => vs,
      'flow 3 switch branch',
      async () => {
        const { page, home } = vs!;
        assert.ok(pathOfLastEntry(s.file).includes(s.newHead), 'the new branch is active at start');

        const transcript = await openTranscriptFromSidebar(page, s.title, s.newHead);
        assert.equal(await transcript.locator(entrySelector(s.oldHead)).count(), 0, "the other branch's answer is not shown");
        await statusBarItem(page, `${s.title} · ${s.newBranch}`).waitFor({ state: 'visible', timeout: 30_000 });

        // A click on the other branch's row only shows it: the transcript shows its messages and says it is not the
        // active branch; nothing is switched (the session file is as it was).
        const sessionBefore = readFileSync(s.file, 'utf8');
        await (await branchRow(page, s.title, s.oldBranch)).click();
        const shown = await webviewFrame(page, '[data-testid="branch-banner"]:not([hidden])', 30_000);
        await shown.locator(entrySelector(s.oldHead)).waitFor({ state: 'visible', timeout: 30_000 });
        assert.match((await shown.locator('[data-testid="branch-banner"]').textContent()) ?? '', /not the active branch .*files stay as they are/);
        assert.equal(readFileSync(s.file, 'utf8'), sessionBefore, 'a click switched nothing');
        await keyMomentScreenshot(vs!, 'flow3-branch-shown');

        await switchBranchInTree(page, s.title, s.oldBranch, async () => pathOfLastEntry(s.file).includes(s.oldHead));
        // The switch says that the files stay as they are.
        await waitForNotification(page, /Now on branch .*Files were not changed/);

        // The session file: its last entry's path is now the old branch (so pi/oh-my-pi continue there too).
        const path = pathOfLastEntry(s.file);
        assert.ok(path.includes(s.oldHead) && !path.includes(s.newHead), 'the last entry continues the switched-to branch');
        assert.equal(branchNames(e2eEnv().repo, home, s.file).active, s.oldBranch);
        // The transcript follows without being reopened.
        const frame = await webviewFrame(page, entrySelector(s.oldHead), 30_000);
        await waitFor('the transcript to drop the other branch', async () => (await frame.locator(entrySelector(s.newHead)).count()) === 0, 30_000);
        // The status bar follows.
        await statusBarItem(page, `${s.title} · ${s.oldBranch}`).waitFor({ state: 'visible', timeout: 30_000 });
        await keyMomentScreenshot(vs!, 'flow3-switched-branch');
      },
    ));

  it('flow 3: a session file written by another process appears in the tree without a reload', () =>
    withArtifacts(
      () => vs,
      'flow 3 external session',
      async () => {
        const { page, home, workspace } = vs!;
        await sessionRow(page, s.title);
        const repo = e2eEnv().repo;
        const title = 'Written by another process';
        const created = cli(repo, home, ['new', '--cwd', workspace, '--title', title]);
        cli(repo, home, ['append', created.file, '--role', 'user', '--text', 'Hello from the terminal']);
        cli(repo, home, ['append', created.file, '--role', 'assistant', '--text', 'Hello!']);
        await treeRow(page, title).waitFor({ state: 'visible', timeout: 30_000 });
      },
    ));
});
