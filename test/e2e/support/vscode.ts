// One real VS Code for a test file: code-server with a fresh user-data folder, workspace and agent-rewind home,
// plus a chromium page showing its workbench. close() stops both; keepFailureArtifacts() saves what helps debug.
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { launchCodeServer, type CodeServerInstance } from '../../../scripts/e2e/code-server.mjs';
import { e2eEnv } from './env';
import { waitForWorkbench } from './workbench';

export interface VsCode {
  page: Page;
  browser: Browser;
  server: CodeServerInstance;
  /** The folder VS Code has open. */
  workspace: string;
  /** AGENT_REWIND_HOME of this instance. */
  home: string;
  dir: string;
  /** Browser console lines (webview errors show up here). */
  consoleLines: string[];
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Short name: folder names and artifacts use it. */
  name: string;
  /** Runs before VS Code starts: write workspace files and sessions here. */
  prepare?: (ctx: { workspace: string; home: string }) => void | Promise<void>;
  settings?: Record<string, unknown>;
  /** Settings of the machine (machine-scoped ones, such as agentRewind.agentModules, are read only there). */
  machineSettings?: Record<string, unknown>;
  /** Installs the host-test runner too and tells it where to write results. */
  hostTestsResultFile?: string;
  env?: Record<string, string>;
  /** Another code-server (its entry.js) and the Node that runs it; default: the one every flow uses. */
  codeServer?: { entry: string; node: string };
  /** More unpacked extension folders to install. */
  extraExtensions?: string[];
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-features=Translate',
];

export async function openVsCode(o: OpenOptions): Promise<VsCode> {
  const env = e2eEnv();
  mkdirSync(env.runDir, { recursive: true });
  const dir = mkdtempSync(join(env.runDir, `${o.name}-`));
  const workspace = join(dir, 'workspace');
  const home = join(dir, 'agent-rewind-home');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true });
  await o.prepare?.({ workspace, home });

  const extensions = [env.extension, ...(o.hostTestsResultFile ? [env.hostRunner] : []), ...(o.extraExtensions ?? [])];
  const server = await launchCodeServer({
    codeServer: o.codeServer?.entry ?? env.codeServer,
    ...(o.codeServer ? { node: o.codeServer.node } : {}),
    dir,
    workspace,
    extensions,
    settings: o.settings,
    ...(o.machineSettings ? { machineSettings: o.machineSettings } : {}),
    env: {
      AGENT_REWIND_HOME: home,
      ...(o.hostTestsResultFile ? { AGENT_REWIND_HOST_TESTS_RESULT: o.hostTestsResultFile } : {}),
      ...o.env,
    },
  });
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: env.chromium, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    const consoleLines: string[] = [];
    page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
    await page.goto(server.workbenchUrl);
    await waitForWorkbench(page);
    const b = browser;
    return {
      page,
      browser: b,
      server,
      workspace,
      home,
      dir,
      consoleLines,
      close: async () => {
        await b.close().catch(() => {});
        await server.stop();
      },
    };
  } catch (e) {
    await browser?.close().catch(() => {});
    await server.stop();
    // The instance folder is deleted with the run: keep code-server's log of a failed start.
    const out = resultsDir('failures', `${o.name}-launch`);
    if (existsSync(server.logFile)) copyFileSync(server.logFile, join(out, 'code-server.log'));
    throw e;
  }
}

/** Where this run keeps screenshots and logs (test-results/, gitignored). */
export function resultsDir(...parts: string[]): string {
  const d = join(e2eEnv().resultsDir, ...parts);
  mkdirSync(d, { recursive: true });
  return d;
}

/** A screenshot of a flow's key moment: always under test-results/screenshots, also in docs/screenshots on request. */
export async function keyMomentScreenshot(vs: VsCode, name: string): Promise<string> {
  const file = join(resultsDir('screenshots'), `${name}.png`);
  await vs.page.screenshot({ path: file });
  const env = e2eEnv();
  if (env.updateScreenshots) {
    const docs = join(env.repo, 'docs', 'screenshots');
    mkdirSync(docs, { recursive: true });
    copyFileSync(file, join(docs, `${name}.png`));
  }
  return file;
}

const slug = (s: string) =>
  s
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80)
    .toLowerCase();

/** Keeps a screenshot, the code-server log, the extension host logs, the browser console and the sessions. */
export async function keepFailureArtifacts(vs: VsCode | undefined, testName: string): Promise<string | undefined> {
  if (!vs) return undefined;
  const out = resultsDir('failures', slug(testName));
  await vs.page.screenshot({ path: join(out, 'screenshot.png') }).catch(() => {});
  for (const f of [vs.server.logFile, ...vs.server.extensionHostLogs()]) {
    if (existsSync(f)) copyFileSync(f, join(out, `${basename(join(f, '..'))}-${basename(f)}`));
  }
  writeFileSync(join(out, 'browser-console.log'), vs.consoleLines.join('\n'));
  if (existsSync(join(vs.home, 'sessions'))) cpSync(join(vs.home, 'sessions'), join(out, 'sessions'), { recursive: true });
  return out;
}

/** Runs a test body; on failure keeps the artifacts (and says where) before rethrowing. */
export async function withArtifacts(getVs: () => VsCode | undefined, testName: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    const where = await keepFailureArtifacts(getVs(), testName).catch(() => undefined);
    if (where && e instanceof Error) e.message += `\n(screenshot and logs: ${where})`;
    throw e;
  }
}
