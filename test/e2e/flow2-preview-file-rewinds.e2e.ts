// Flow 2, "Preview file rewinds": a message without a file snapshot gets a clear error in the preview and nothing
// changes on disk; Cancel on a valid preview leaves files and the session untouched; with file checkpointing
// turned off in the settings, the preview says so.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { appendMessage, cli, writeFiles } from '../../scripts/e2e/sessions.mjs';
import { clickEntryAction, focusTab, openTranscriptFromSidebar, previewFrame } from './support/agent-rewind';
import { readTree } from './support/disk';
import { e2eEnv } from './support/env';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { editorTab, setBooleanSetting, webviewFrame } from './support/workbench';

const TITLE = 'Refactor the parser';

describe('flow 2: Preview file rewinds', () => {
  let vs: VsCode | undefined;
  let sessionRef = '';
  let withSnapshot = '';
  let withoutSnapshot = '';
  before(async () => {
    vs = await openVsCode({
      name: 'flow2',
      prepare: ({ workspace, home }) => {
        const repo = e2eEnv().repo;
        writeFiles(workspace, { 'parser.js': 'export function parse(s) {\n  return s.split(",");\n}\n' });
        const s = cli(repo, home, ['new', '--cwd', workspace, '--title', TITLE]);
        sessionRef = s.file;
        withSnapshot = appendMessage(repo, home, s.file, 'user', 'Trim the fields');
        writeFiles(workspace, { 'parser.js': 'export function parse(s) {\n  return s.split(",").map((f) => f.trim());\n}\n' });
        appendMessage(repo, home, s.file, 'assistant', 'Fields are trimmed now.');
        // This message was recorded without a file snapshot (as by an agent with checkpointing off).
        withoutSnapshot = appendMessage(repo, home, s.file, 'user', 'Also skip empty fields', { snapshot: false });
        writeFiles(workspace, { 'parser.js': 'export function parse(s) {\n  return s.split(",").map((f) => f.trim()).filter(Boolean);\n}\n' });
        appendMessage(repo, home, s.file, 'assistant', 'Empty fields are skipped.');
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  const untouched = () => ({ files: readTree(vs!.workspace), session: readFileSync(sessionRef, 'utf8') });

  it('flow 2: a message without a snapshot shows the error in the preview and changes nothing', () =>
    withArtifacts(
      () => vs,
      'flow 2 missing snapshot',
      async () => {
        const { page } = vs!;
        const before = untouched();
        await openTranscriptFromSidebar(page, TITLE, withoutSnapshot);
        await clickEntryAction(page, withoutSnapshot, 'rewind-to-here');
        const preview = await previewFrame(page, '[data-testid="preview-error"]');
        const error = ((await preview.locator('[data-testid="preview-error"]').first().textContent()) ?? '').trim();
        assert.match(error, /snapshot|checkpoint/i, `the error says why: "${error}"`);
        assert.equal(await preview.locator('[data-testid="file-row"]').count(), 0, 'no file rows are offered');
        await keyMomentScreenshot(vs!, 'flow2-preview-error');
        assert.deepEqual(untouched(), before, 'nothing changed on disk');
      },
    ));

  it('flow 2: Cancel on a valid preview leaves files and the session untouched', () =>
    withArtifacts(
      () => vs,
      'flow 2 cancel',
      async () => {
        const { page } = vs!;
        const before = untouched();
        await openTranscriptFromSidebar(page, TITLE, withSnapshot);
        await clickEntryAction(page, withSnapshot, 'rewind-to-here');
        const preview = await previewFrame(page, '[data-testid="file-row"][data-path="parser.js"]');
        await preview.locator('[data-action="cancel"]').first().click();
        await editorTab(page, 'Rewind preview').waitFor({ state: 'detached', timeout: 30_000 });
        assert.deepEqual(untouched(), before, 'Cancel changed nothing on disk');
      },
    ));

  it('flow 2: with file checkpointing off in the settings, the preview says so and changes nothing', () =>
    withArtifacts(
      () => vs,
      'flow 2 checkpointing off',
      async () => {
        const { page } = vs!;
        const before = untouched();
        await openTranscriptFromSidebar(page, TITLE, withSnapshot);
        await setBooleanSetting(page, 'agentRewind.fileCheckpointing.enabled', false);
        // The extension hears about the change asynchronously: open the preview until it reflects the setting.
        const error = await waitFor(
          'the preview to report checkpointing off',
          async () => {
            await focusTab(page, `Transcript: ${TITLE}`); // the preview covers it: bring it back each time
            await clickEntryAction(page, withSnapshot, 'rewind-to-here');
            const frame = await webviewFrame(page, '[data-testid="preview-error"], [data-testid="file-row"]');
            const text =
              (await frame
                .locator('[data-testid="preview-error"]')
                .first()
                .textContent({ timeout: 1000 })
                .catch(() => null)) ?? '';
            return /off|disabled|enable/i.test(text) ? text.trim() : undefined;
          },
          60_000,
        );
        assert.match(error, /checkpoint/i, `the error names file checkpointing: "${error}"`);
        assert.deepEqual(untouched(), before, 'nothing changed on disk');
      },
    ));
});
