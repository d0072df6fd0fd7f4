// Runs the built webview bundles (dist/webview, from `npm run build`) in headless Chromium as VS Code would: the
// real page with its CSP, a fake acquireVsCodeApi whose postMessage reaches a host-side handler in Node, and theme
// variables set like VS Code sets them. Used by the browser test and by the screenshot script.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { RewindEngine } from '../../../src/core/engine/engine';
import { webviewPage } from '../../../src/extension/webviews/html';
import type { PreviewServices } from '../../../src/extension/webviews/services';

export const CHROMIUM = '/usr/bin/chromium';
const root = resolve(import.meta.dirname, '..', '..', '..');
const url = (...p: string[]) => pathToFileURL(join(root, ...p)).toString();

/** Whether the browser and the built bundles are there (the browser test is skipped, with the reason, if not). */
export function browserHarnessMissing(): string | undefined {
  if (!existsSync(CHROMIUM)) return `no ${CHROMIUM} (apt-get install chromium)`;
  if (!existsSync(join(root, 'dist', 'webview', 'transcript.js'))) return 'dist/webview not built (npm run build)';
  return undefined;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'] });
}

// A few of VS Code's Dark Modern theme colors (VS Code injects all of them into real webviews).
export const DARK: Record<string, string> = {
  'font-family': 'system-ui, sans-serif',
  'font-size': '13px',
  'editor-font-family': 'monospace',
  'editor-font-size': '13px',
  foreground: '#cccccc',
  'editor-background': '#1f1f1f',
  descriptionForeground: '#9d9d9d',
  focusBorder: '#0078d4',
  'button-background': '#0078d4',
  'button-foreground': '#ffffff',
  'button-hoverBackground': '#026ec1',
  'button-secondaryBackground': '#313131',
  'button-secondaryForeground': '#cccccc',
  'button-secondaryHoverBackground': '#3c3c3c',
  'textLink-foreground': '#4daafc',
  'textCodeBlock-background': '#2b2b2b',
  'input-background': '#313131',
  'editorWidget-background': '#202020',
  'panel-border': '#2b2b2b',
  'sideBar-background': '#181818',
  'badge-background': '#616161',
  'badge-foreground': '#f8f8f8',
  'charts-blue': '#3794ff',
  'charts-purple': '#b180d7',
  'charts-orange': '#d18616',
  'charts-green': '#89d185',
  'charts-red': '#f14c4c',
  'terminal-ansiYellow': '#e5e510',
  errorForeground: '#f85149',
  'editorWarning-foreground': '#cca700',
  'inputValidation-errorBackground': '#5a1d1d',
  'inputValidation-errorBorder': '#be1100',
  'inputValidation-infoBackground': '#063b49',
  'inputValidation-infoBorder': '#1a85ff',
  'list-hoverBackground': '#2a2d2e',
  'toolbar-hoverBackground': '#5a5d5e50',
  'widget-border': '#313131',
  'gitDecoration-addedResourceForeground': '#81b88b',
  'gitDecoration-deletedResourceForeground': '#c74e39',
  'gitDecoration-modifiedResourceForeground': '#e2c08d',
  'gitDecoration-untrackedResourceForeground': '#73c991',
  'icon-foreground': '#cccccc',
  disabledForeground: '#cccccc80',
};

export interface OpenWebview {
  page: Page;
  /** Host → webview, as webview.postMessage does. */
  post(message: unknown): Promise<void>;
  /** Page errors, console errors (CSP violations among them) and dialogs (an alert() would mean injected script). */
  problems: string[];
}

/**
 * Opens a webview page. `connect` gets the function that posts to the webview and returns the handler of what the
 * webview posts (typically: construct a host controller with the one, return its `handle`). It is wired before the
 * page loads, because the webview's `ready` arrives while the page is still loading.
 */
export async function openWebview(
  browser: Browser,
  bundle: 'transcript' | 'preview' | 'compare',
  connect: (post: (message: unknown) => Promise<void>) => (message: unknown) => unknown,
  viewport = { width: 1000, height: 800 },
): Promise<OpenWebview> {
  const page = await browser.newPage({ viewport });
  // Page-side code as a string: these files are type-checked without the DOM library.
  // A controller may still post while a test ends (a delayed refresh), as to a real webview that was closed: a post to
  // a closed page is dropped instead of surfacing as an unhandled rejection after the test.
  const post = async (m: unknown) => {
    if (page.isClosed()) return;
    try {
      await page.evaluate(`window.postMessage(${JSON.stringify(m)}, '*')`);
    } catch (err) {
      if (!page.isClosed()) throw err;
    }
  };
  const toHost = connect(post);
  const problems: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'agent-rewind-webview-'));
  page.once('close', () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'index.html'),
    webviewPage({
      cspSource: 'file:',
      nonce: 'harness-nonce',
      scriptUri: url('dist', 'webview', `${bundle}.js`),
      styleUris: [url('dist', 'codicons', 'codicon.css'), url('dist', 'webview', `${bundle}.css`)],
      title: bundle,
    }),
  );
  await page.exposeBinding('__toHost', (_source, m: unknown) => void toHost(m));
  // A string, not a function: tsx's helpers (e.g. __name) do not exist inside the page.
  await page.addInitScript(`
    document.addEventListener('DOMContentLoaded', () => {
      for (const [k, v] of Object.entries(${JSON.stringify(DARK)})) document.documentElement.style.setProperty('--vscode-' + k, v);
    });
    let state;
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => state, setState: (s) => { state = s; } });
  `);
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(pathToFileURL(join(dir, 'index.html')).toString());
  return { page, post, problems };
}

/** Polls until `check` returns a value (no fixed sleeps): a page and its host answer when they answer. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The preview's services over a real engine, as the extension's PanelServices gives them (without the editor parts). */
export function engineServices(engine: RewindEngine): PreviewServices {
  return {
    preview: (ref, anchor) => engine.previewRewind(ref.sessionRef, anchor),
    async previewSelection(ref, anchor, only, hunks) {
      const r = await engine.rewindFiles(ref.sessionRef, anchor, { dryRun: true, only, ...(hunks ? { hunks } : {}) });
      if (!r.canRewind) throw new Error(r.error ?? 'cannot');
      return { filesChanged: r.filesChanged, insertions: r.insertions, deletions: r.deletions };
    },
    fileHunks: async (ref, anchor, path) => (await engine.fileHunks(ref.sessionRef, anchor, [path]))[0]!,
    apply: (ref, anchor, mode, options) => engine.applyRewind(ref.sessionRef, anchor, mode, options),
    openFileDiff: async () => {},
    closeFileDiffs: async () => {},
    describeUndo: (ref) => engine.describeUndo(ref.sessionRef),
    editorChat: async () => {},
  };
}
