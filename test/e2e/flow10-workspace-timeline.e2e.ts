// Flow 10, one timeline per workspace (issue 27): two sessions take turns in one folder (A writes the parser, B the
// docs, A tidies the parser). The Rewind preview of A's first prompt labels B's file as the other session's and keeps
// it; unticking one of A's files and confirming leaves that file byte for byte; the file history opens from the
// explorer; agent blame (status item and hover) names the prompt that wrote the cursor's line; the Workspace Timeline
// view lists both sessions' snapshots interleaved, newest first, and a click opens the session at that prompt.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, cli, writeFiles } from '../../scripts/e2e/sessions.mjs';
import { clickEntryAction, openTranscriptFromSidebar, previewFrame, sessionRow } from './support/agent-rewind';
import { readTree } from './support/disk';
import { e2eEnv } from './support/env';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { contextMenu, editorTab, runCommand, statusBarItem, waitForNotification, webviewFrame } from './support/workbench';

const A = 'Build the parser';
const B = 'Write the docs';
const PARSER_V1 = 'export function parse(s) {\n  return s.split(",");\n}\n';
const PARSER_V2 = 'export function parse(s) {\n  return s.split(",").map((x) => x.trim());\n}\n';
const DOCS = '# Parser\n\nSplits on commas.\n';
const UTIL = 'export const sep = ",";\n';

describe('flow 10: one timeline per workspace', () => {
  let vs: VsCode | undefined;
  let a1 = '';
  before(async () => {
    vs = await openVsCode({
      name: 'flow10',
      prepare: ({ workspace, home }) => {
        const repo = e2eEnv().repo;
        writeFiles(workspace, { 'README.md': 'hello\n' });
        const a = cli(repo, home, ['new', '--cwd', workspace, '--title', A]);
        const b = cli(repo, home, ['new', '--cwd', workspace, '--title', B]);
        a1 = appendMessage(repo, home, a.file, 'user', 'Write the parser');
        writeFiles(workspace, { 'parser.js': PARSER_V1 });
        appendMessage(repo, home, a.file, 'assistant', 'Parser written.');
        appendMessage(repo, home, b.file, 'user', 'Document the parser');
        writeFiles(workspace, { 'docs.md': DOCS });
        appendMessage(repo, home, b.file, 'assistant', 'Documented.');
        appendMessage(repo, home, a.file, 'user', 'Trim the fields');
        writeFiles(workspace, { 'parser.js': PARSER_V2, 'util.js': UTIL });
        appendMessage(repo, home, a.file, 'assistant', 'Trimmed.');
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  const file = (name: string) => readFileSync(join(vs!.workspace, name), 'utf8');

  it('flow 10: the preview names the other session’s file; an unticked file is left alone; history, blame and the Workspace Timeline', () =>
    withArtifacts(
      () => vs,
      'flow 10 workspace timeline',
      async () => {
        const { page, workspace } = vs!;
        await sessionRow(page, A);

        // --- the Rewind preview of A's first prompt: B's file is B's, and stays ---
        await openTranscriptFromSidebar(page, A, a1);
        await clickEntryAction(page, a1, 'rewind-to-here');
        const preview = await previewFrame(page, '[data-testid="file-row"]');
        const docsRow = preview.locator('li.file-item', { has: preview.locator('[data-testid="file-row"][data-path="docs.md"]') }).first();
        await docsRow.waitFor({ state: 'visible', timeout: 30_000 });
        assert.match((await docsRow.locator('[data-testid="other-session"]').textContent()) ?? '', /changed by another session — kept/);
        assert.equal(await docsRow.locator('[data-testid="file-tick"]').isChecked(), false, 'the other session’s file is not ticked');
        for (const path of ['parser.js', 'util.js'])
          assert.equal(await preview.locator(`[data-testid="file-tick"][data-path="${path}"]`).isChecked(), true, `${path} (A’s own) is ticked`);
        await keyMomentScreenshot(vs!, 'flow10-preview-other-session');

        // untick parser.js: only util.js (A's too) goes back; parser.js and docs.md stay byte for byte
        const before = readTree(workspace);
        await preview.locator('[data-testid="file-tick"][data-path="parser.js"]').first().click();
        const confirmFrame = await webviewFrame(page, '[data-testid="unticked"]');
        assert.equal(await confirmFrame.locator('[data-testid="file-tick"][data-path="parser.js"]').isChecked(), false);
        await confirmFrame.locator('[data-action="confirm"]').first().click();
        await waitForNotification(page, /Rewound/);
        await waitFor('util.js to be gone (it did not exist at the first prompt)', async () => !('util.js' in readTree(workspace)), 30_000);
        const afterRewind = readTree(workspace);
        assert.equal(afterRewind['parser.js'], before['parser.js'], 'the unticked file is left byte for byte');
        assert.equal(afterRewind['docs.md'], DOCS, 'the other session’s file is left byte for byte');
        assert.equal(afterRewind['README.md'], 'hello\n');

        // --- File History Across Agents from the explorer ---
        await runCommand(page, 'View: Show Explorer');
        const row = page.locator('.explorer-folders-view .monaco-list-row').filter({ hasText: 'parser.js' }).first();
        await row.waitFor({ state: 'visible', timeout: 30_000 });
        // the explorer drops util.js (the rewind deleted it) before its rows hold still under the mouse
        const explorerRows = page.locator('.explorer-folders-view .monaco-list-row');
        await waitFor('the explorer to drop util.js', async () => (await explorerRows.filter({ hasText: 'util.js' }).count()) === 0, 30_000);
        await contextMenu(page, row, 'File History Across Agents');
        await page.locator('.quick-input-widget', { hasText: 'History of parser.js across agents' }).first().waitFor({ state: 'visible', timeout: 30_000 });
        const picks = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
        await picks.filter({ hasText: 'Trim the fields' }).first().waitFor({ state: 'visible', timeout: 30_000 });
        const texts = (await picks.allTextContents()).map((t) => t.replace(/\s+/g, ' '));
        assert.equal(texts.length, 2, JSON.stringify(texts));
        assert.match(texts[0]!, new RegExp(`${A}.*Trim the fields`));
        assert.match(texts[1]!, /Write the parser/);
        await page.keyboard.press('Escape');

        // --- agent blame: the status item and the hover name the prompt of the cursor's line ---
        await row.click();
        await editorTab(page, /^\s*parser\.js\s*$/).waitFor({ state: 'visible', timeout: 30_000 });
        const lines = page.locator('.part.editor .monaco-editor .view-lines .view-line');
        await lines.filter({ hasText: 'trim' }).first().waitFor({ state: 'visible', timeout: 30_000 });
        // line 2 was rewritten by "Trim the fields"; line 1 is still "Write the parser"'s
        await lines.filter({ hasText: 'trim' }).first().click();
        const blameItem = statusBarItem(page, /Trim the fields/);
        await blameItem.waitFor({ state: 'visible', timeout: 30_000 });
        assert.match(((await blameItem.textContent()) ?? '').replace(/\s+/g, ' '), /· “Trim the fields” · (just now|\d+ min ago)/);
        await lines.filter({ hasText: 'export function parse' }).first().click();
        await statusBarItem(page, /Write the parser/).waitFor({ state: 'visible', timeout: 30_000 });
        // over the line's first word (past the end of a line VS Code shows no hover)
        const box = await lines.filter({ hasText: 'trim' }).first().locator('span').first().boundingBox();
        assert.ok(box, 'line 2 is laid out');
        await page.mouse.move(box.x + 40, box.y + box.height / 2);
        const hover = page.locator('.monaco-hover').filter({ hasText: 'Agent blame' }).first();
        await hover.waitFor({ state: 'visible', timeout: 30_000 });
        const hoverText = ((await hover.textContent()) ?? '').replace(/\s+/g, ' ');
        assert.match(hoverText, /Agent blame: .* · “Trim the fields”/);
        assert.match(hoverText, new RegExp(`Session: ${A}`));
        assert.match(hoverText, /Open the prompt/);
        await keyMomentScreenshot(vs!, 'flow10-blame-hover');
        // the hover's link opens the file's history (its argument, the file's uri, survives the command link)
        await hover.locator('a', { hasText: 'File history' }).first().click();
        await page.locator('.quick-input-widget', { hasText: 'History of parser.js across agents' }).first().waitFor({ state: 'visible', timeout: 30_000 });
        await page.keyboard.press('Escape');

        // --- the Workspace Timeline view: both sessions, interleaved, newest first ---
        await sessionRow(page, A);
        const header = page.locator('.part.sidebar .pane-header[aria-label^="Workspace Timeline"]').first();
        await header.waitFor({ state: 'visible', timeout: 30_000 });
        if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
        // the Sessions view above takes the height: fold it, as a user would, to see the timeline whole
        const sessionsHeader = page.locator('.part.sidebar .pane-header[aria-label^="Sessions"]').first();
        if ((await sessionsHeader.getAttribute('aria-expanded')) === 'true') await sessionsHeader.click();
        await page.mouse.move(700, 400);
        const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header[aria-label^="Workspace Timeline"]') }).first();
        const points = pane.locator('.monaco-list-row[role="treeitem"][aria-level="2"]');
        await points.first().waitFor({ state: 'visible', timeout: 30_000 });
        const rows = async () => (await points.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
        const want = [
          /Before a rewind.*agent-rewind · Build the parser · before a rewind/,
          /“Trim the fields”.*turn ended/,
          /“Trim the fields”.*prompt sent/,
          /“Document the parser”.*turn ended/,
          /“Document the parser”.*prompt sent/,
          /“Write the parser”.*turn ended/,
          /“Write the parser”.*prompt sent/,
        ];
        await waitFor(
          'the timeline to list both sessions’ snapshots',
          async () => {
            const got = await rows();
            return got.length === want.length && want.every((re, i) => re.test(got[i]!));
          },
          30_000,
        ).catch(async () => assert.fail(`timeline rows: ${JSON.stringify(await rows())}`));
        await keyMomentScreenshot(vs!, 'flow10-workspace-timeline');

        // a click opens B's session at its prompt
        await points.filter({ hasText: 'Document the parser' }).last().click();
        await editorTab(page, `Transcript: ${B}`).waitFor({ state: 'visible', timeout: 30_000 });
        assert.equal(file('docs.md'), DOCS);
      },
    ));
});
