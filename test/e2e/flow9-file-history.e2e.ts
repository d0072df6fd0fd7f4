// Flow 9, "File history across agents" (issue 27, item 4): from the explorer's context menu, a file's history lists
// the prompts that changed it, newest first; a change opens as a diff; "Restore this file to before it" asks first,
// puts back that one file and nothing else, and its notification's Undo puts it back exactly.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, cli, writeFiles } from '../../scripts/e2e/sessions.mjs';
import { sessionRow } from './support/agent-rewind';
import { e2eEnv } from './support/env';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { clickNotificationButton, contextMenu, editorTab, runCommand, pickQuickItem, waitForNotification } from './support/workbench';

const TITLE = 'Grow the app';
const V1 = 'export const a = 1;\n';
const V2 = 'export const a = 1;\nexport const b = 2;\n';
const OTHER = 'other v2\n';

describe('flow 9: File history across agents', () => {
  let vs: VsCode | undefined;
  before(async () => {
    vs = await openVsCode({
      name: 'flow9',
      prepare: ({ workspace, home }) => {
        const repo = e2eEnv().repo;
        writeFiles(workspace, { 'other.txt': 'other v1\n' });
        const s = cli(repo, home, ['new', '--cwd', workspace, '--title', TITLE]);
        appendMessage(repo, home, s.file, 'user', 'Write the app');
        writeFiles(workspace, { 'app.js': V1 });
        appendMessage(repo, home, s.file, 'assistant', 'Written.');
        appendMessage(repo, home, s.file, 'user', 'Export b as well');
        writeFiles(workspace, { 'app.js': V2, 'other.txt': OTHER });
        appendMessage(repo, home, s.file, 'assistant', 'Exported b.');
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  const file = (name: string) => readFileSync(join(vs!.workspace, name), 'utf8');

  it('flow 9: the explorer opens the history; a change opens its diff; one file is restored to before its prompt, and undone', () =>
    withArtifacts(
      () => vs,
      'flow 9 file history',
      async () => {
        const { page } = vs!;
        // the extension's menus are there once it has loaded: its session listed
        await sessionRow(page, TITLE);
        await runCommand(page, 'View: Show Explorer');
        const row = page.locator('.explorer-folders-view .monaco-list-row').filter({ hasText: 'app.js' }).first();
        await row.waitFor({ state: 'visible', timeout: 30_000 });
        await contextMenu(page, row, 'File History Across Agents');
        const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
        await rows.filter({ hasText: 'Export b as well' }).first().waitFor({ state: 'visible', timeout: 30_000 });
        const texts = (await rows.allTextContents()).map((t) => t.replace(/\s+/g, ' '));
        assert.equal(texts.length, 2, `one row per prompt that changed app.js: ${JSON.stringify(texts)}`);
        assert.match(texts[0]!, new RegExp(`${TITLE}.*Export b as well`), 'newest first, with the session title and the prompt');
        assert.match(texts[1]!, /Write the app/);
        await keyMomentScreenshot(vs!, 'flow9-file-history');

        await pickQuickItem(page, 'Export b as well');
        await pickQuickItem(page, 'Open the diff');
        await editorTab(page, /app\.js \(/).waitFor({ state: 'visible', timeout: 30_000 });

        // the palette acts on the active editor's file
        await row.click();
        await editorTab(page, /^\s*app\.js\s*$/).waitFor({ state: 'visible', timeout: 30_000 });
        await runCommand(page, 'Agent Rewind: File History Across Agents');
        await pickQuickItem(page, 'Export b as well');
        await pickQuickItem(page, 'Restore this file to before it');
        const dialog = page.locator('.monaco-dialog-box');
        await dialog.waitFor({ state: 'visible', timeout: 30_000 });
        assert.match((await dialog.textContent()) ?? '', /app\.js will be rewritten/);
        await dialog.locator('.monaco-button', { hasText: 'Restore' }).first().click();
        await waitFor('app.js to be as before the prompt', async () => file('app.js') === V1, 30_000);
        assert.equal(file('other.txt'), OTHER, 'the other file the prompt changed is left alone');

        const toast = await waitForNotification(page, /restored app\.js to before that prompt/);
        await clickNotificationButton(toast, 'Undo');
        await waitFor('the undo to put app.js back', async () => file('app.js') === V2, 30_000);
        assert.equal(file('other.txt'), OTHER);
      },
    ));
});
