// Manual check, not a test: renders the built webviews (npm run build first) in headless Chromium with a fake
// acquireVsCodeApi wired to the REAL host controllers and fake services, and writes screenshots.
//   node --import tsx test/unit/webview/screenshot.ts <out-dir>
// Needs Debian's chromium (/usr/bin/chromium).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { webviewPage } from '../../../src/extension/webviews/html';
import { RewindPreviewController } from '../../../src/extension/webviews/preview-controller';
import { TranscriptController } from '../../../src/extension/webviews/transcript-controller';
import { copyFileSync } from 'node:fs';
import { RewindEngine } from '../../../src/core/engine/engine';
import { parseSettings } from '../../../src/core/engine/settings';
import { FakeServices, FakeUi, generateTranscript, samplePreview } from './fakes';

/** Real pi session files, rendered through the real engine (copies in a temp folder: loading may migrate them). */
const REAL_SESSIONS = ['/work/shared/fixtures/pi/before-compaction.v1.jsonl', '/work/shared/fixtures/pi/session-with-branch-summary.v3.jsonl'];

const outDir = resolve(process.argv[2] ?? 'screenshots');
mkdirSync(outDir, { recursive: true });
const root = resolve('.');
const url = (...p: string[]) => pathToFileURL(join(root, ...p)).toString();

// A few of VS Code's Dark Modern theme colors (VS Code injects all of them into real webviews).
const DARK: Record<string, string> = {
  'font-family': 'system-ui, sans-serif', 'font-size': '13px', 'editor-font-family': 'monospace', 'editor-font-size': '13px',
  foreground: '#cccccc', 'editor-background': '#1f1f1f', descriptionForeground: '#9d9d9d', focusBorder: '#0078d4',
  'button-background': '#0078d4', 'button-foreground': '#ffffff', 'button-hoverBackground': '#026ec1',
  'button-secondaryBackground': '#313131', 'button-secondaryForeground': '#cccccc', 'button-secondaryHoverBackground': '#3c3c3c',
  'textLink-foreground': '#4daafc', 'textCodeBlock-background': '#2b2b2b', 'input-background': '#313131',
  'editorWidget-background': '#202020', 'panel-border': '#2b2b2b', 'sideBar-background': '#181818',
  'badge-background': '#616161', 'badge-foreground': '#f8f8f8', 'charts-blue': '#3794ff', 'charts-purple': '#b180d7',
  'charts-orange': '#d18616', 'charts-green': '#89d185', 'charts-red': '#f14c4c', 'terminal-ansiYellow': '#e5e510',
  errorForeground: '#f85149', 'editorWarning-foreground': '#cca700', 'inputValidation-errorBackground': '#5a1d1d',
  'inputValidation-errorBorder': '#be1100', 'inputValidation-infoBackground': '#063b49', 'inputValidation-infoBorder': '#1a85ff',
  'list-hoverBackground': '#2a2d2e', 'toolbar-hoverBackground': '#5a5d5e50', 'widget-border': '#313131',
  'gitDecoration-addedResourceForeground': '#81b88b', 'gitDecoration-deletedResourceForeground': '#c74e39',
  'gitDecoration-modifiedResourceForeground': '#e2c08d', 'gitDecoration-untrackedResourceForeground': '#73c991',
  'icon-foreground': '#cccccc', disabledForeground: '#cccccc80',
};

async function open(page: Page, bundle: 'transcript' | 'preview', handle: (m: unknown) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-rewind-shot-'));
  const html = webviewPage({
    cspSource: 'file:',
    nonce: 'harness-nonce',
    scriptUri: url('dist', 'webview', `${bundle}.js`),
    styleUris: [url('dist', 'codicons', 'codicon.css'), url('dist', 'webview', `${bundle}.css`)],
    title: bundle,
  });
  writeFileSync(join(dir, 'index.html'), html);
  await page.exposeBinding('__toHost', (_source, m: unknown) => void handle(m));
  // A string, not a function: tsx's helpers (e.g. __name) do not exist inside the page.
  await page.addInitScript(`
    document.addEventListener('DOMContentLoaded', () => {
      for (const [k, v] of Object.entries(${JSON.stringify(DARK)})) document.documentElement.style.setProperty('--vscode-' + k, v);
    });
    let state;
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => state, setState: (s) => { state = s; } });
  `);
  page.on('dialog', (d) => {
    dialogs++;
    void d.dismiss();
  });
  page.on('console', (m) => console.log(`[${bundle}] ${m.text()}`));
  page.on('pageerror', (e) => console.log(`[${bundle}] page error: ${e.message}`));
  await page.goto(pathToFileURL(join(dir, 'index.html')).toString());
  page.once('close', () => rmSync(dir, { recursive: true, force: true }));
}

// Page-side code is passed as strings: this file is type-checked without the DOM library.
let dialogs = 0;
const toWebview = (page: Page) => (m: unknown) => void page.evaluate(`window.postMessage(${JSON.stringify(m)}, '*')`);

async function main(): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'] });
  try {
    // Transcript: 10,000 generated rows, with a few hostile messages and a label at the top.
    {
      const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
      const services = new FakeServices();
      services.transcript = generateTranscript(10_000);
      const items = services.transcript.items;
      items[0]!.markdown = 'Hi! <script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) ![logo](https://example.com/logo.png)';
      items[1]!.label = 'good state';
      items[3]!.isError = true;
      items[6]!.otherBranches = [{ name: 'try-tabs', headEntryId: 'z1' }, { name: 'try-spaces', headEntryId: 'z2' }];
      items[7]!.markdown = Array.from({ length: 80 }, (_, i) => `line ${i}`).join('\n');
      const ui = new FakeUi();
      const controller = new TranscriptController({ sessionFile: '/tmp/s.jsonl' }, services, toWebview(page), ui, { refreshDelayMs: 10 });
      await open(page, 'transcript', async (m) => controller.handle(m));
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
      console.log(`transcript: ${domRows} rows in the DOM at the top of 10,000; first visible row ${before} before a refresh, ${after} after; copied ${JSON.stringify(ui.called('copyToClipboard').map((c) => c.args[0]))}; dialogs: ${dialogs}`);
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
        const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
        const controller = new TranscriptController({ sessionFile: file }, services, toWebview(page), new FakeUi());
        await open(page, 'transcript', async (m) => controller.handle(m));
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
      ['preview-error', samplePreview({ files: { ok: false, error: 'No file checkpoint was taken for this message (file checkpointing was off when it was sent).' } })],
    ] as const) {
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      const services = new FakeServices();
      services.previewModel = model;
      const ui = new FakeUi();
      const controller = new RewindPreviewController({ sessionFile: '/tmp/s.jsonl' }, 'e0000006', services, toWebview(page), ui, () => console.log('panel closed'));
      await open(page, 'preview', async (m) => controller.handle(m));
      await page.waitForSelector('[data-action="confirm"]');
      await page.screenshot({ path: join(outDir, `${name}.png`), fullPage: true });
      if (name === 'preview') {
        await page.locator('[data-testid="file-row"][data-path="src/a.ts"]').click();
        await page.locator('input[name="mode"][value="conversation"]').check();
        await page.screenshot({ path: join(outDir, 'preview-conversation-only.png'), fullPage: true });
        await page.locator('[data-action="confirm"]').click();
        await page.locator('[data-action="confirm"]', { hasText: 'Rewound' }).waitFor();
        console.log(`dialogs: ${dialogs}`);
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
