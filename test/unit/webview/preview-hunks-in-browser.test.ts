// The Rewind preview's hunk ticks in headless Chromium, wired to the real host controller and a real engine over a
// real workspace (as preview-ticks-in-browser.test.ts): a text file's row opens to its hunks, unticking one makes the
// file's tick mixed, the counts and the Confirm button follow the host's dry run of exactly the ticked hunks, the
// messages sent to the host name the hunks with the hash of the bytes they were shown for, Confirm takes back only
// those hunks, Undo and Redo are exact, and a file changed after its hunks were shown is refused with nothing lost.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { RewindPreviewController } from '../../../src/extension/webviews/preview-controller';
import { fingerprint, readTree } from '../files/helpers';
import { browserHarnessMissing, engineServices, launchBrowser, openWebview, until } from './browser-harness';
import { FakeUi } from './fakes';

const missing = browserHarnessMissing();

const anchorText = 'one\ntwo\nthree\nfour\nfive\nsix\n';
const agentText = 'one\nTWO\nthree\nfour\nfive\nSIX\nseven\n';

describe('preview hunk ticks in Chromium over a real engine', { skip: missing }, () => {
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
    dir = await mkdtemp(join(tmpdir(), 'ar-hunks-'));
    ws = join(dir, 'ws');
    await mkdir(join(ws, 'src'), { recursive: true });
    await writeFile(join(ws, 'src/a.txt'), anchorText);
    await writeFile(join(ws, 'b.txt'), 'bee\n');
    await writeFile(join(ws, 'logo.bin'), 'x\0y');
    engine = new RewindEngine({
      settings: parseSettings((k) => ({ home: join(dir, 'home'), includePiSessions: false, 'fileCheckpointing.enabled': true })[k], {}),
      workspaceRoots: [ws],
      warn: () => {},
    });
    session = await engine.createSession(ws, { title: 'Hunks' });
    anchor = (await engine.appendMessage(session, { role: 'user', content: 'change things' })).entryId;
    // The agent's turn: two separate changes to a.txt, one to b.txt, one to a binary file.
    await writeFile(join(ws, 'src/a.txt'), agentText);
    await writeFile(join(ws, 'b.txt'), 'BEE\n');
    await writeFile(join(ws, 'logo.bin'), 'x\0z');
    await engine.appendMessage(session, { role: 'assistant', content: [{ type: 'text', text: 'changed' }] });
  });
  afterEach(async () => {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  /** The preview over the engine, with every message the webview sent to the host. */
  async function open() {
    const ui = new FakeUi();
    const sent: { type: string; [k: string]: unknown }[] = [];
    let closed = false;
    const opened = await openWebview(browser, 'preview', (post) => {
      const controller = new RewindPreviewController({ sessionRef: session }, anchor, engineServices(engine), post, ui, () => (closed = true));
      return (m) => {
        sent.push(m as (typeof sent)[number]);
        return controller.handle(m);
      };
    });
    const { page } = opened;
    await page.locator('[data-testid="file-tick"][data-path="src/a.txt"]').waitFor();
    await page.locator('input[name="mode"][value="files"]').check();
    return { ...opened, sent, isClosed: () => closed };
  }

  it('ticking and unticking hunks: mixed file tick, counts, Confirm label and the messages follow; Confirm takes back only them; Undo and Redo are exact', async () => {
    const { page, problems, sent, isClosed } = await open();
    const totals = page.locator('[data-testid="totals"]');
    const confirm = page.locator('[data-action="confirm"]');
    const fileTick = page.locator('[data-testid="file-tick"][data-path="src/a.txt"]');
    assert.equal(await totals.textContent(), '3 files to restore, 4 3');
    assert.equal(await confirm.textContent(), 'Rewind 3 files');
    assert.equal(await page.locator('[data-testid="file-row"][data-path="logo.bin"] ~ [data-testid="whole-file-only"]').textContent(), 'whole file only');
    assert.equal(await page.locator('[data-testid="hunks-toggle"][data-path="logo.bin"]').count(), 0, 'a binary file has no hunks to open');

    // Open a.txt's hunks: both ticked, as the file is.
    const toggle = page.locator('[data-testid="hunks-toggle"][data-path="src/a.txt"]');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    const hunkTick = (i: number) => page.locator(`[data-testid="hunk-tick"][data-path="src/a.txt"][data-hunk="${i}"]`);
    await hunkTick(2).waitFor();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(await page.locator('[data-testid="hunk"][data-path="src/a.txt"]').count(), 2);
    assert.deepEqual([await hunkTick(1).isChecked(), await hunkTick(2).isChecked()], [true, true]);
    assert.match((await page.locator('[data-testid="hunk"][data-hunk="2"]').textContent()) ?? '', /Hunk 2 of 2 · lines 6–7 now.*-six\+SIX\+seven/s);
    const fileHunksAsked = sent.filter((m) => m.type === 'fileHunks');
    assert.deepEqual(
      fileHunksAsked.map((m) => m.path),
      ['src/a.txt'],
    );

    // Untick hunk 1 by keyboard: the file's tick turns mixed, the host's dry run of the selection sets counts and label.
    await hunkTick(1).focus();
    await page.keyboard.press('Space');
    await until('the dry run of the hunks', async () => ((await totals.textContent()) === '3 files to restore, 3 2' ? true : undefined));
    assert.equal(await confirm.textContent(), 'Rewind 3 files');
    assert.equal(await page.evaluate(`document.activeElement?.dataset?.hunk`), '1', 'the focus stays on the hunk tick');
    assert.equal(await fileTick.evaluate((el) => (el as unknown as { indeterminate: boolean }).indeterminate), true, 'the file tick is mixed');
    assert.equal(await page.locator('[data-testid="partial"]').textContent(), 'hunk 2 of 2 — the rest kept');
    assert.match((await page.locator('[data-testid="file-row"][data-path="src/a.txt"]').textContent()) ?? '', /21$/, "the row counts hunk 2's lines");
    const hash = ((await engine.fileHunks(session, anchor, ['src/a.txt']))[0] as { hash: string }).hash;
    const asked = sent.filter((m) => m.type === 'previewSelection').at(-1);
    assert.deepEqual({ only: asked?.only, hunks: asked?.hunks }, { only: ['b.txt', 'logo.bin'], hunks: [{ path: 'src/a.txt', hunks: [2], hash }] });

    // Untick hunk 2 too: the file is left out (not mixed), two files remain.
    await hunkTick(2).uncheck();
    await until('the file left out', async () => ((await confirm.textContent()) === 'Rewind 2 files' ? true : undefined));
    assert.equal(await fileTick.isChecked(), false);
    assert.equal(await fileTick.evaluate((el) => (el as unknown as { indeterminate: boolean }).indeterminate), false);
    assert.match((await page.locator('[data-testid="file-row"][data-path="src/a.txt"]').textContent()) ?? '', /not chosen — kept/);
    // The file's own tick brings every hunk back; then hunk 1 off again.
    await fileTick.check();
    await until('the whole file again', async () => ((await totals.textContent()) === '3 files to restore, 4 3' ? true : undefined));
    assert.deepEqual([await hunkTick(1).isChecked(), await hunkTick(2).isChecked()], [true, true]);
    await hunkTick(1).uncheck();
    await until('hunk 2 alone again', async () => ((await totals.textContent()) === '3 files to restore, 3 2' ? true : undefined));

    const agentLeft = await fingerprint(ws);
    await confirm.click();
    await until('the rewind', async () => (isClosed() ? true : undefined));
    const confirmSent = sent.filter((m) => m.type === 'confirm').at(-1);
    assert.deepEqual(
      { only: confirmSent?.only, hunks: confirmSent?.hunks, mode: confirmSent?.mode },
      { only: ['b.txt', 'logo.bin'], hunks: [{ path: 'src/a.txt', hunks: [2], hash }], mode: 'files' },
    );
    assert.deepEqual(await readTree(ws), { 'src/a.txt': 'one\nTWO\nthree\nfour\nfive\nsix\n', 'b.txt': 'bee\n', 'logo.bin': 'x\0y' });
    const rewound = await fingerprint(ws);

    await engine.undoLastRewind(session);
    assert.deepEqual(await fingerprint(ws), agentLeft, 'undo puts every byte and mode back');
    await engine.redoRewind(session);
    assert.deepEqual(await fingerprint(ws), rewound, 'redo takes back the same hunk again');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a file changed after its hunks were shown: Confirm is refused with the reason and nothing changes', async () => {
    const { page, problems } = await open();
    await page.locator('[data-testid="hunks-toggle"][data-path="src/a.txt"]').click();
    const hunk1 = page.locator('[data-testid="hunk-tick"][data-path="src/a.txt"][data-hunk="1"]');
    await hunk1.waitFor();
    await hunk1.uncheck();
    const confirm = page.locator('[data-action="confirm"]');
    await until('the dry run of the hunks', async () => ((await confirm.textContent()) === 'Rewind 3 files' ? true : undefined));
    // Someone edits a.txt while the preview is open.
    await writeFile(join(ws, 'src/a.txt'), agentText + 'eight\n');
    const before = await fingerprint(ws);
    await confirm.click();
    const error = page.locator('[data-testid="preview-error"]');
    await until('the refusal', async () => ((await error.count()) > 0 ? true : undefined));
    assert.match((await error.textContent()) ?? '', /The rewind did not happen\. src\/a\.txt changed since its hunks were shown.*Nothing was rewound/);
    assert.deepEqual(await fingerprint(ws), before, 'nothing changed, not even the other ticked files');
    assert.equal(await readFile(join(ws, 'src/a.txt'), 'utf8'), agentText + 'eight\n');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
