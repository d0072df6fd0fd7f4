// The Rewind preview's file ticks in headless Chromium, wired to the real host controller and a real engine over a
// real workspace: unticking a file changes the counts and the Confirm button (from the host's dry run of the
// selection), Confirm leaves that file as it is, and Undo and Redo of the partial rewind are exact.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { RewindPreviewController } from '../../../src/extension/webviews/preview-controller';
import { readTree } from '../files/helpers';
import { browserHarnessMissing, engineServices, launchBrowser, openWebview, until } from './browser-harness';
import { FakeUi } from './fakes';

const missing = browserHarnessMissing();

describe('preview file ticks in Chromium over a real engine', { skip: missing }, () => {
  let browser: Browser;
  let dir: string;
  let ws: string;
  let engine: RewindEngine;
  let session: string;
  let anchor: string;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-ticks-'));
    ws = join(dir, 'ws');
    await mkdir(join(ws, 'src'), { recursive: true });
    await writeFile(join(ws, 'src/a.txt'), 'one\ntwo\n');
    await writeFile(join(ws, 'b.txt'), 'bee\n');
    engine = new RewindEngine({
      settings: parseSettings((k) => ({ home: join(dir, 'home'), includePiSessions: false, 'fileCheckpointing.enabled': true })[k], {}),
      workspaceRoots: [ws],
      warn: () => {},
    });
    session = await engine.createSession(ws, { title: 'Ticks' });
    anchor = (await engine.appendMessage(session, { role: 'user', content: 'change things' })).entryId;
    // The agent's turn: edits one file, creates one, deletes one.
    await writeFile(join(ws, 'src/a.txt'), 'one\nTWO\nthree\n');
    await writeFile(join(ws, 'c.txt'), 'new\n');
    await unlink(join(ws, 'b.txt'));
    await engine.appendMessage(session, { role: 'assistant', content: [{ type: 'text', text: 'changed' }] });
  });
  afterEach(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('unticking a file: counts and Confirm follow, the file is left as it is, Undo and Redo are exact', async () => {
    const ui = new FakeUi();
    let closed = false;
    const { page, problems } = await openWebview(browser, 'preview', (post) => {
      const controller = new RewindPreviewController({ sessionRef: session }, anchor, engineServices(engine), post, ui, () => (closed = true));
      return (m) => controller.handle(m);
    });
    const totals = page.locator('[data-testid="totals"]');
    const confirm = page.locator('[data-action="confirm"]');
    const tick = page.locator('[data-testid="file-tick"][data-path="src/a.txt"]');
    await tick.waitFor();
    assert.equal(await page.locator('[data-testid="file-tick"]:checked').count(), 3, 'every file is ticked at first');
    await page.locator('input[name="mode"][value="files"]').check();
    assert.match((await totals.textContent()) ?? '', /^3 files to restore, /);
    assert.equal(await confirm.textContent(), 'Rewind 3 files');

    // By keyboard: focus the tick, Space unticks it; the focus stays on it through the re-render.
    await tick.focus();
    await page.keyboard.press('Space');
    await until('the dry run of the selection', async () => ((await confirm.textContent()) === 'Rewind 2 files' ? true : undefined));
    assert.equal(await tick.isChecked(), false);
    assert.equal(await page.evaluate(`document.activeElement?.dataset?.path`), 'src/a.txt', 'the focus stays on the tick');
    // c.txt (+1) and b.txt (-1 brought back) only: a.txt's +2 -1 are no longer counted
    assert.equal(await totals.textContent(), '2 files to restore, 1 1');
    assert.match((await page.locator('[data-testid="file-row"][data-path="src/a.txt"]').textContent()) ?? '', /not chosen — kept/);

    const agentLeft = await readTree(ws);
    await confirm.click();
    await until('the rewind', async () => (closed ? true : undefined));
    const rewound = await readTree(ws);
    assert.equal(rewound['src/a.txt'], agentLeft['src/a.txt'], 'the unticked file is left as it is');
    assert.deepEqual(rewound, { 'src/a.txt': 'one\nTWO\nthree\n', 'b.txt': 'bee\n' }, 'the ticked files are as they were at the message');

    await engine.undoLastRewind(session);
    assert.deepEqual(await readTree(ws), agentLeft, 'undo puts everything back exactly');
    await engine.redoRewind(session);
    assert.deepEqual(await readTree(ws), rewound, 'redo does the same partial rewind again');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
