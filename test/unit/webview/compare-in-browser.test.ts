// The built Compare branches webview in headless Chromium, under its real CSP, wired to the real host controller and
// fake services: both columns drawn, hostile text inert, and everything reachable with the keyboard alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { CompareController } from '../../../src/extension/webviews/compare-controller';
import { browserHarnessMissing, launchBrowser, openWebview, until } from './browser-harness';
import { FakeServices, FakeUi, sampleCompare } from './fakes';

const missing = browserHarnessMissing();
const HOSTILE = 'Hi <script>alert(1)</script> <img src=x onerror=alert(1)>';

describe('compare webview in Chromium', { skip: missing }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it('shows both branches and the files; a file opens its diff from the keyboard; hostile text stays text', async () => {
    const services = new FakeServices();
    const m = sampleCompare({ title: HOSTILE });
    m.a = { ...m.a, messages: [...m.a.messages, { entryId: 'evil', kind: 'assistant', preview: HOSTILE }] };
    services.compareModel = m;
    const ref = { sessionRef: m.sessionRef, branchA: 'main', branchB: 'main-v2' };
    const { page, problems } = await openWebview(browser, 'compare', (post) => {
      const controller = new CompareController(ref, services, (x) => void post(x), new FakeUi());
      return (x) => controller.handle(x);
    });
    await page.locator('[data-testid="file-row"]').first().waitFor();
    assert.equal(await page.locator('[data-testid="column-a"] [data-testid="branch-name"]').textContent(), 'main');
    assert.equal(await page.locator('[data-testid="column-b"] [data-testid="branch-name"]').textContent(), 'main-v2');
    assert.equal(await page.locator('[data-testid="column-a"] [data-testid="message"]').count(), 4);
    assert.match((await page.locator('[data-testid="session-title"]').textContent()) ?? '', /<script>alert\(1\)<\/script>/);
    assert.equal(await page.locator('script:not([nonce]), img').count(), 0, 'no injected script or image element');

    // Tab through the page until the replica.conf row has the focus, then Enter.
    const focusedPath = () =>
      page.evaluate(`document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.path || '' : ''`) as Promise<string>;
    for (let i = 0; i < 40 && (await focusedPath()) !== 'replica.conf'; i++) await page.keyboard.press('Tab');
    assert.equal(await focusedPath(), 'replica.conf');
    await page.keyboard.press('Enter');
    await until('the diff to be opened', async () => (services.called('openBranchFileDiff').length ? true : undefined));
    assert.deepEqual(services.called('openBranchFileDiff')[0]?.args, [
      { sessionRef: '/sessions/s1.jsonl', branch: 'main', anchorEntryId: 'u3' },
      { sessionRef: '/sessions/s1.jsonl', branch: 'main-v2', anchorEntryId: 'u3b' },
      'replica.conf',
    ]);
    // Focus stays on the row across the re-render.
    await until('the row to be idle again', async () => ((await page.locator('[aria-busy="true"]').count()) === 0 ? true : undefined));
    assert.equal(await focusedPath(), 'replica.conf');

    // A failing diff is said in the panel.
    services.failDiff = new Error('the snapshot store is gone');
    await page.locator('[data-testid="file-row"][data-path="db.txt"]').click();
    assert.match((await page.locator('[data-testid="diff-error"]').textContent({ timeout: 10_000 })) ?? '', /the snapshot store is gone/);

    // Swap asks the host for B | A.
    await page.locator('[data-action="swap"]').click();
    await until('the swapped columns', async () =>
      (await page
        .locator('[data-testid="column-a"]')
        .getAttribute('data-branch')
        .catch(() => null)) === 'main-v2'
        ? true
        : undefined,
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});
