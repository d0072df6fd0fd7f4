// Manual check, not a test: renders the built webviews (npm run build first) in headless Chromium, wired to the REAL
// host controllers with fake services (and real pi sessions through the real engine), and writes screenshots.
//   node --import tsx test/unit/webview/screenshot.ts <out-dir>
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/settings/settings';
import { RewindPreviewController } from '../../../src/extension/webviews/preview-controller';
import { TranscriptController } from '../../../src/extension/webviews/transcript-controller';
import { launchBrowser, openWebview } from './browser-harness';
import { FakeServices, FakeUi, generateTranscript, samplePreview } from './fakes';

/** Real pi session files (../shared beside the clone), copied to a temp folder first: loading may migrate them. */
const FIXTURES = resolve(import.meta.dirname, '..', '..', '..', '..', 'shared', 'fixtures', 'pi');
const REAL_SESSIONS = ['before-compaction.v1.jsonl', 'session-with-branch-summary.v3.jsonl'].map((f) => join(FIXTURES, f)).filter((f) => existsSync(f));

const outDir = resolve(process.argv[2] ?? 'screenshots');
mkdirSync(outDir, { recursive: true });

async function main(): Promise<void> {
  const browser = await launchBrowser();
  try {
    // Transcript: 10,000 generated rows, with a few hostile messages and a label at the top.
    {
      const services = new FakeServices();
      services.transcript = generateTranscript(10_000);
      const items = services.transcript.items;
      items[0]!.markdown = 'Hi! <script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) ![logo](https://example.com/logo.png)';
      items[1]!.label = 'good state';
      items[3]!.isError = true;
      items[6]!.otherBranches = [
        { name: 'try-tabs', headEntryId: 'z1' },
        { name: 'try-spaces', headEntryId: 'z2' },
      ];
      items[7]!.markdown = Array.from({ length: 80 }, (_, i) => `line ${i}`).join('\n');
      const ui = new FakeUi();
      const { page, problems } = await openWebview(browser, 'transcript', (post) => {
        const controller = new TranscriptController({ sessionRef: '/tmp/s.jsonl' }, services, post, ui, { refreshDelayMs: 10 });
        return (m) => controller.handle(m);
      });
      await page.waitForSelector('[data-entry-id="e0000000"]');
      await page.screenshot({ path: join(outDir, 'transcript-top.png') });
      const domRows = await page.locator('[data-entry-id]').count();
      await page.locator('#scroller').evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
      // (Locators, not waitForFunction: the page's CSP forbids the eval that a string predicate needs.)
      await page.locator('.placeholder').first().waitFor({ state: 'detached' });
      await page.locator('[data-entry-id]').first().waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(outDir, 'transcript-middle.png') });
      const firstVisible = () =>
        page.evaluate(`(() => { const top = document.getElementById('scroller').getBoundingClientRect().top;
          return [...document.querySelectorAll('[data-entry-id]')].find((el) => el.getBoundingClientRect().bottom > top + 1)?.dataset.index; })()`);
      const before = await firstVisible();
      // Another process appends a message: the view refreshes and the reader stays where they were.
      services.transcript = generateTranscript(10_001);
      services.fireChange();
      await page.locator('#count', { hasText: '10,001 messages' }).waitFor();
      await page.locator('.placeholder').first().waitFor({ state: 'detached' });
      await page.waitForTimeout(300);
      const after = await firstVisible();
      // Once settled, an idle transcript must not keep re-rendering (that would also swallow clicks).
      const mutations = await page.evaluate(`new Promise((resolve) => { let n = 0;
        const o = new MutationObserver((l) => { n += l.length; }); o.observe(document.getElementById('rows'), { childList: true, subtree: true });
        setTimeout(() => { o.disconnect(); resolve(n); }, 1000); })`);
      console.log(`DOM mutations while idle for 1 s: ${mutations}`);
      const id = await page.locator('[data-entry-id]').nth(3).getAttribute('data-entry-id');
      await page.locator(`[data-entry-id="${id}"] [data-action="copy-id"]`).click();
      await page.locator('#notice', { hasText: `Copied message id ${id}` }).waitFor();
      console.log(
        `transcript: ${domRows} rows in the DOM at the top of 10,000; first visible row ${before} before a refresh, ${after} after; copied ${JSON.stringify(ui.called('copyToClipboard').map((c) => c.args[0]))}; problems: ${JSON.stringify(problems)}`,
      );
      await page.close();
    }
    // Real sessions through the engine's transcript rows.
    for (const fixture of REAL_SESSIONS) {
      const tmp = mkdtempSync(join(tmpdir(), 'agent-rewind-real-'));
      try {
        const file = join(tmp, fixture.split('/').pop()!);
        copyFileSync(fixture, file);
        const engine = new RewindEngine({ settings: parseSettings(() => undefined, { AGENT_REWIND_HOME: join(tmp, 'home') }), workspaceRoots: [tmp] });
        const services = new FakeServices();
        services.transcript = await engine.loadTranscript(file);
        const { page } = await openWebview(browser, 'transcript', (post) => {
          const controller = new TranscriptController({ sessionRef: file }, services, post, new FakeUi());
          return (m) => controller.handle(m);
        });
        await page.locator('[data-entry-id]').first().waitFor();
        const kinds = await page.locator('[data-entry-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')).join(','));
        console.log(`${fixture}: ${services.transcript.items.length} rows; first kinds ${kinds}`);
        await page.screenshot({ path: join(outDir, `real-${fixture.split('/').pop()!.replace('.jsonl', '')}.png`) });
        await page.close();
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    // Preview: all parts fine, one file changed by hand, a skipped file.
    for (const [name, model] of [
      ['preview', samplePreview()],
      [
        'preview-error',
        samplePreview({ files: { ok: false, error: 'No file checkpoint was taken for this message (file checkpointing was off when it was sent).' } }),
      ],
    ] as const) {
      const services = new FakeServices();
      services.previewModel = model;
      const ui = new FakeUi();
      const { page, problems } = await openWebview(
        browser,
        'preview',
        (post) => {
          const controller = new RewindPreviewController({ sessionRef: '/tmp/s.jsonl' }, 'e0000006', services, post, ui, () => console.log('panel closed'));
          return (m) => controller.handle(m);
        },
        { width: 1000, height: 900 },
      );
      await page.waitForSelector('[data-action="confirm"]');
      await page.screenshot({ path: join(outDir, `${name}.png`), fullPage: true });
      if (name === 'preview') {
        await page.locator('[data-testid="file-row"][data-path="src/a.ts"]').click();
        await page.locator('input[name="mode"][value="conversation"]').check();
        await page.screenshot({ path: join(outDir, 'preview-conversation-only.png'), fullPage: true });
        await page.locator('[data-action="confirm"]').click();
        await page.locator('[data-action="confirm"]', { hasText: 'Rewound' }).waitFor();
        console.log(`problems: ${JSON.stringify(problems)}`);
        console.log('preview calls:', JSON.stringify(services.calls.map((c) => [c.method, ...c.args.slice(1)])), JSON.stringify(ui.calls));
      }
      await page.close();
    }
  } finally {
    await browser.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
