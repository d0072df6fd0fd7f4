// Opening the transcript at a message, in the built webview in headless Chromium with the real host controller:
// the message is scrolled into view and highlighted even in a 10,000-row transcript and when asked before the page
// was ready; a message on another branch gets a banner whose switch button shows it there. Skipped (saying why)
// where Chromium or the build is missing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TranscriptController } from '../../../src/extension/webviews/transcript-controller';
import { browserHarnessMissing, launchBrowser, openWebview } from './browser-harness';
import { FakeServices, FakeUi, generateTranscript } from './fakes';

const missing = browserHarnessMissing();

/** Whether the row's box lies inside the scroller's visible box. */
const inView = (page: Page, entryId: string) =>
  page.evaluate(`(() => {
    const s = document.getElementById('scroller').getBoundingClientRect();
    const r = document.querySelector('[data-entry-id="${entryId}"]')?.getBoundingClientRect();
    return !!r && r.top >= s.top - 1 && r.top < s.bottom;
  })()`) as Promise<boolean>;

describe('revealing a message in Chromium', { skip: missing }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  async function open(services: FakeServices, beforeReady?: (c: TranscriptController) => void) {
    let controller!: TranscriptController;
    const view = await openWebview(browser, 'transcript', (post) => {
      controller = new TranscriptController({ sessionRef: '/w/s.jsonl' }, services, post, new FakeUi(), { refreshDelayMs: 5 });
      void controller.refresh(); // as the panel does
      beforeReady?.(controller);
      return (m) => controller.handle(m);
    });
    return { ...view, controller };
  }

  it('asked before the page is ready, row 7,000 of 10,000 is scrolled into view and highlighted for a moment', async () => {
    const services = new FakeServices();
    services.transcript = generateTranscript(10_000);
    const target = 'e0001b58'; // row 7,000
    const { page, problems } = await open(services, (c) => void c.reveal(target));
    const row = page.locator(`[data-entry-id="${target}"][data-revealed="true"]`);
    await row.waitFor();
    assert.equal(await inView(page, target), true, 'the row is in the viewport');
    assert.ok((await page.locator('[data-entry-id]').count()) < 60, 'still only a window of rows in the DOM');
    assert.equal(await page.evaluate('document.activeElement?.dataset?.entryId'), target, 'focus moves to the message');
    assert.equal(await page.locator('[data-testid="reveal-banner"]').isVisible(), false);
    await page.locator(`[data-entry-id="${target}"]:not([data-revealed])`).waitFor({ timeout: 10_000 });
    assert.equal(await inView(page, target), true, 'the message stays where it was shown');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a message on another branch: a banner names the branch, and its switch shows the message there', async () => {
    const services = new FakeServices();
    services.transcript = generateTranscript(500);
    services.locations.set('alt-msg', { found: true, onActiveBranch: false, branch: 'alt <b>', activeBranch: 'main', preview: 'try it <i>the other way</i>' });
    const alt = generateTranscript(400, 'alt <b>');
    alt.items.push({ entryId: 'alt-msg', kind: 'user', markdown: 'try it <i>the other way</i>' });
    alt.model.total = alt.items.length;
    services.branchTranscripts.set('alt <b>', alt);
    const { page, problems, controller } = await open(services);
    await page.locator('[data-entry-id="e0000000"]').waitFor();
    await controller.reveal('alt-msg');
    const banner = page.locator('[data-testid="reveal-banner"]');
    await banner.waitFor();
    assert.match((await banner.textContent()) ?? '', /This message is on branch alt <b>, not on the active branch main: try it <i>the other way<\/i>/);
    assert.equal(await banner.locator('b, i').count(), 0, 'names and text stay text');
    await banner.locator('[data-action="show-branch"][data-branch="alt <b>"]').click();
    await page.locator('[data-entry-id="alt-msg"][data-revealed="true"]').waitFor();
    assert.equal(await inView(page, 'alt-msg'), true);
    assert.equal(await banner.isVisible(), false, 'the banner goes once the message is shown');
    assert.equal(await page.locator('#branch').textContent(), 'alt <b>');
    assert.equal(services.called('switchBranch').length, 0, 'the branch is shown, not switched to');
    assert.match((await page.locator('[data-testid="branch-banner"]').textContent()) ?? '', /Showing branch alt <b>, not the active branch main/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
