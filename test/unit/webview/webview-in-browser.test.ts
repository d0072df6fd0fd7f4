// The built webviews in headless Chromium, under their real CSP, wired to the real host controllers and fake
// services: what a person sees and clicks. Skipped (saying why) where Chromium or the build is missing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { RewindPreviewController } from '../../../src/extension/webviews/preview-controller';
import { TranscriptController } from '../../../src/extension/webviews/transcript-controller';
import type { RewindPreviewModel } from '../../../src/shared/view-models';
import { browserHarnessMissing, launchBrowser, openWebview, until } from './browser-harness';
import { FakeServices, FakeUi, generateTranscript, samplePreview } from './fakes';

const missing = browserHarnessMissing();
const HOSTILE = 'Hi <script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) ![t](https://example.com/t.png)';

const firstVisibleIndex = (page: Page) =>
  page.evaluate(`(() => { const top = document.getElementById('scroller').getBoundingClientRect().top;
    return [...document.querySelectorAll('[data-entry-id]')].find((el) => el.getBoundingClientRect().bottom > top + 1)?.dataset.index; })()`) as Promise<
    string | undefined
  >;

describe('webviews in Chromium', { skip: missing }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  async function openTranscript(services: FakeServices, ui = new FakeUi()) {
    const view = await openWebview(browser, 'transcript', (post) => {
      const controller = new TranscriptController({ sessionRef: '/w/s.jsonl' }, services, post, ui, { refreshDelayMs: 5 });
      return (m) => controller.handle(m);
    });
    return { ...view, ui };
  }

  it('transcript: 10,000 messages keep a small DOM, hostile text stays text, actions reach the services', async () => {
    const services = new FakeServices();
    services.transcript = generateTranscript(10_000);
    services.transcript.items[0]!.markdown = HOSTILE;
    services.transcript.items[6]!.otherBranches = [{ name: 'try-tabs', headEntryId: 'z' }];
    const { page, problems } = await openTranscript(services);
    const first = page.locator('[data-entry-id="e0000000"][data-kind="user"]');
    await first.waitFor();
    assert.ok((await page.locator('[data-entry-id]').count()) < 60, 'only a window of rows is in the DOM');
    assert.match(
      (await first.locator('.row-body').textContent()) ?? '',
      /<script>alert\(1\)<\/script> <img src=x onerror=alert\(1\)> \[x\]\(javascript:alert\(1\)\)/,
    );
    assert.equal(await page.locator('.row-body script, .row-body img, .row-body a[href^="javascript"]').count(), 0);
    for (const action of ['rewind-to-here', 'fork', 'label', 'copy-id']) assert.equal(await first.locator(`[data-action="${action}"]`).count(), 1, action);
    assert.equal(await page.locator('[data-entry-id="e0000001"] [data-action="rewind-to-here"]').count(), 0, 'only user messages rewind');

    await first.locator('[data-action="rewind-to-here"]').click();
    await page.locator('[data-entry-id="e0000002"] [data-action="fork"]').click();
    await until('the services to be called', async () => (services.called('fork').length ? true : undefined));
    assert.deepEqual(
      services.called('previewRewind').map((c) => c.args[1]),
      ['e0000000'],
    );
    // A branch button only shows that branch; the banner says so and offers the switch, which keeps the files.
    services.branchTranscripts.set('try-tabs', generateTranscript(10, 'try-tabs'));
    await page.locator('[data-entry-id="e0000006"] [data-action="show-branch"][data-branch="try-tabs"]').click();
    const banner = page.locator('[data-testid="branch-banner"]');
    await banner.waitFor();
    assert.match(
      (await banner.textContent()) ?? '',
      /Showing branch try-tabs, not the active branch main\. Switching to it changes the conversation only: files stay as they are\./,
    );
    assert.equal(await page.locator('#branch').textContent(), 'try-tabs');
    assert.equal(services.called('switchBranch').length, 0, 'showing switched nothing');
    await banner.locator('[data-testid="switch-to-shown"]').click();
    await until('the switch', async () => (services.called('switchBranch').length ? true : undefined));
    assert.deepEqual(
      services.called('switchBranch').map((c) => c.args[1]),
      ['try-tabs'],
    );
    await until('the banner to go', async () => ((await banner.isVisible()) ? undefined : true));
    assert.match((await page.locator('#notice').textContent()) ?? '', /Now on branch "try-tabs"\. Files were not changed/);
    assert.deepEqual(problems, [], 'no script ran, no CSP violation, no error');
    await page.close();
  });

  it('transcript: a change on disk refreshes the view and keeps the reader where they were', async () => {
    const services = new FakeServices();
    services.transcript = generateTranscript(2_000);
    const { page, problems } = await openTranscript(services);
    await page.locator('[data-entry-id]').first().waitFor();
    await page.locator('#scroller').evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await page.locator('.placeholder').first().waitFor({ state: 'detached' });
    const before = await until('a settled window', async () => {
      const a = await firstVisibleIndex(page);
      await new Promise((r) => setTimeout(r, 100));
      return a !== undefined && a === (await firstVisibleIndex(page)) ? a : undefined;
    });
    assert.ok(Number(before) > 500, `scrolled to the middle (row ${before})`);
    services.transcript = generateTranscript(2_001);
    services.fireChange();
    await page.locator('#count', { hasText: '2,001 messages' }).waitFor();
    await until(`row ${before} at the top again`, async () => ((await firstVisibleIndex(page)) === before ? true : undefined));

    await page.locator('[data-action="go-latest"]').click();
    await page.locator('[data-entry-id="e00007d0"]').waitFor(); // row 2,000, the last
    await page.locator('[data-action="go-first"]').click();
    await until('row 0 at the top', async () => ((await firstVisibleIndex(page)) === '0' ? true : undefined));
    assert.deepEqual(problems, []);
    await page.close();
  });

  async function openPreview(model: RewindPreviewModel) {
    const services = new FakeServices();
    services.previewModel = model;
    const ui = new FakeUi();
    ui.infoChoice = 'Undo';
    let closed = false;
    const view = await openWebview(browser, 'preview', (post) => {
      const controller = new RewindPreviewController({ sessionRef: '/w/s.jsonl' }, 'e0000006', services, post, ui, () => (closed = true));
      return (m) => controller.handle(m);
    });
    return { ...view, services, ui, closed: () => closed };
  }

  it('preview: files with counts, the overwrite box changes the totals, Confirm applies the chosen mode and offers Undo', async () => {
    const { page, problems, services, ui, closed } = await openPreview(samplePreview());
    const row = page.locator('[data-testid="file-row"][data-path="src/a.ts"]');
    await row.waitFor();
    assert.equal(await row.locator('[data-testid="insertions"]').textContent(), '4');
    assert.equal(await row.locator('[data-testid="deletions"]').textContent(), '2');
    const totals = page.locator('[data-testid="totals"]');
    assert.match((await totals.textContent()) ?? '', /^2 files to restore, 8 2$/);
    await page.locator('#overwrite-user-modified').check();
    assert.match((await totals.textContent()) ?? '', /^3 files to restore, 8 12$/);
    assert.equal(await page.locator('#overwrite-user-modified').isChecked(), true);

    await row.click();
    await page.locator('input[name="mode"][value="files"]').check();
    assert.equal(await page.locator('[data-action="confirm"]').textContent(), 'Rewind 3 files');
    assert.equal(services.called('apply').length, 0, 'nothing is applied before Confirm');
    await page.locator('[data-action="confirm"]').click();
    await until('the Undo offer', async () => (ui.called('executeCommand').length ? true : undefined));
    assert.deepEqual(
      services.called('openFileDiff').map((c) => c.args[2]),
      ['src/a.ts'],
    );
    assert.deepEqual(services.called('apply')[0]?.args.slice(2), ['files', { overwriteUserModified: true }]);
    assert.equal(closed(), true);
    assert.match(String(ui.called('showInfo')[0]?.args[0]), /^Rewound 2 files/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('preview: a file error is shown in words, no file is offered, and the conversation part still works', async () => {
    const { page, problems, services, closed } = await openPreview(
      samplePreview({ files: { ok: false, error: 'Message e0000006 has no file snapshot (file checkpointing was off).' } }),
    );
    const error = page.locator('[data-testid="preview-error"]');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /The files can’t be rewound to this message\. Message e0000006 has no file snapshot/);
    assert.equal(await page.locator('[data-testid="file-row"]').count(), 0);
    assert.equal(await page.locator('input[name="mode"][value="all"]').isDisabled(), true);
    assert.equal(await page.locator('input[name="mode"][value="conversation"]').isChecked(), true);
    assert.equal(await page.locator('[data-testid="new-branch"]').textContent(), 'main-rewind-1');
    await page.locator('[data-action="cancel"]').click();
    await until('the preview to close', async () => (closed() ? true : undefined));
    assert.equal(services.called('apply').length, 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('preview: opens with the focus on its first control, Tab moves, +/- counts are read as words, Escape cancels', async () => {
    const { page, problems, services, closed } = await openPreview(samplePreview());
    await page.locator('[data-testid="file-row"]').first().waitFor();
    const focused = () =>
      page.evaluate(`(() => { const el = document.activeElement; return el ? (el.id || el.dataset.action || el.tagName) : ''; })()`) as Promise<string>;
    assert.equal(await until('the focus', async () => ((await focused()) === 'mode-all' ? 'mode-all' : undefined)), 'mode-all');
    await page.keyboard.press('Tab');
    assert.notEqual(await focused(), 'mode-all', 'Tab moves on');
    assert.equal(await page.locator('[data-testid="file-row"][data-path="src/a.ts"] .counts').getAttribute('aria-label'), '4 insertions, 2 deletions');
    assert.equal(await page.locator('[data-testid="totals"] .counts-pair').getAttribute('aria-label'), '8 insertions, 2 deletions');
    await page.keyboard.press('Escape');
    await until('the preview to close', async () => (closed() ? true : undefined));
    assert.equal(services.called('apply').length, 0, 'Escape applies nothing');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('transcript: one Tab stop, arrows/Home/End move between messages, also to rows outside the rendered window', async () => {
    const services = new FakeServices();
    services.transcript = generateTranscript(5_000);
    const { page, problems } = await openTranscript(services);
    await page.locator('[data-entry-id="e0000000"]').waitFor();
    assert.equal(await page.locator('#rows [role="listitem"][tabindex="0"]').count(), 1, 'exactly one row is in the Tab order');
    const activeIndex = () => page.evaluate(`document.activeElement?.dataset?.index`) as Promise<string | undefined>;
    await page.locator('#rows [role="listitem"][tabindex="0"]').focus();
    const start = Number(await activeIndex());
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await until('focus on the next rows', async () => ((await activeIndex()) === String(start + 2) ? true : undefined)), true);
    await page.keyboard.press('ArrowUp');
    assert.equal(await activeIndex(), String(start + 1));
    await page.keyboard.press('End');
    await until('the last message focused', async () => ((await activeIndex()) === '4999' ? true : undefined));
    assert.equal(await page.locator('[data-index="4999"]').getAttribute('aria-posinset'), '5000');
    assert.equal(await page.locator('[data-index="4999"]').getAttribute('aria-setsize'), '5000');
    assert.ok((await page.locator('[data-entry-id]').count()) < 80, 'still virtualized');
    await page.keyboard.press('Home');
    await until('the first message focused', async () => ((await activeIndex()) === '0' ? true : undefined));
    await page.keyboard.press('PageDown');
    await until('a page further', async () => (Number(await activeIndex()) > 1 ? true : undefined));
    assert.equal(await page.locator('#rows [role="listitem"][tabindex="0"]').count(), 1, 'still one Tab stop');
    // The list is one Tab stop: Tab leaves it in one step (no row's buttons on the way), Shift+Tab comes back.
    const focusedRow = await activeIndex();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(`document.getElementById('rows').contains(document.activeElement)`), false, 'one Tab leaves the list');
    await page.keyboard.press('Shift+Tab');
    await until('the row focused again', async () => ((await activeIndex()) === focusedRow ? true : undefined));
    // → (or Enter) moves into the message's own buttons, Tab goes through them and then out; Escape goes back.
    const focused = () =>
      page.evaluate(`[document.activeElement?.dataset?.action, document.activeElement?.closest('[role="listitem"]')?.dataset?.index]`) as Promise<
        [string, string]
      >;
    await page.keyboard.press('ArrowRight');
    const [firstAction, inRow] = await focused();
    assert.ok(firstAction, 'a button of the row has the focus');
    assert.equal(inRow, focusedRow, 'the button is in the focused message');
    await page.keyboard.press('Tab');
    assert.equal((await focused())[1], focusedRow, "Tab moves among the message's buttons");
    await page.keyboard.press('Escape');
    assert.equal(await activeIndex(), focusedRow, 'Escape goes back to the message');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
