// Agent Rewind's own UI, through the identifiers the extension and its webviews agreed on (see the e2e brief):
// the Sessions tree, the Transcript panel and the Rewind preview panel.
import type { Frame, Locator, Page } from 'playwright-core';
import { waitFor } from './wait';
import {
  clearNotifications,
  clickInlineAction,
  contextMenu,
  editorTab,
  expandTreeRow,
  openAgentRewind,
  pickQuickItem,
  treeRow,
  treeRowByLabel,
  webviewFrame,
} from './workbench';

/** Opens the sidebar and returns the session's row (waits for it to be listed). */
export async function sessionRow(page: Page, title: string): Promise<Locator> {
  await openAgentRewind(page);
  const row = treeRow(page, title);
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  return row;
}

/** Opens a session's transcript from the sidebar (its context menu) and returns the transcript's frame. */
export async function openTranscriptFromSidebar(page: Page, title: string, waitForEntryId: string): Promise<Frame> {
  await clearNotifications(page);
  const row = await sessionRow(page, title);
  await clickInlineAction(row, 'Open Transcript');
  await editorTab(page, `Transcript: ${title}`).waitFor({ state: 'visible', timeout: 30_000 });
  return webviewFrame(page, entrySelector(waitForEntryId), 30_000);
}

/** A transcript row (the preview also carries data-entry-id on its anchor, but without data-kind). */
export const entrySelector = (entryId: string) => `[data-entry-id="${entryId}"][data-kind]`;

/** Clicks a message row's action button in the transcript (the buttons may only show on hover). */
export async function clickEntryAction(page: Page, entryId: string, action: string): Promise<void> {
  await waitFor(
    `${action} on ${entryId}`,
    async () => {
      const frame = await webviewFrame(page, entrySelector(entryId), 30_000);
      const row = frame.locator(entrySelector(entryId)).first();
      await row.scrollIntoViewIfNeeded();
      await row.hover();
      await row.locator(`[data-action="${action}"]`).first().click({ timeout: 5_000 });
      return true;
    },
    30_000,
  );
}

/** The frame of the Rewind preview once it shows either file rows, an error, or its buttons. */
export async function previewFrame(page: Page, ready = '[data-action="cancel"], [data-testid="preview-error"]'): Promise<Frame> {
  await editorTab(page, 'Rewind preview').waitFor({ state: 'visible', timeout: 30_000 });
  return webviewFrame(page, ready, 30_000);
}

export interface PreviewRow {
  path: string;
  insertions: number;
  deletions: number;
}

const count = (text: string | null) => Number((text ?? '').replace(/[^0-9]/g, '') || 'NaN');

/** The file rows of the preview: path and the +/- counts as the user sees them. */
export async function previewFileRows(frame: Frame): Promise<PreviewRow[]> {
  const rows = frame.locator('[data-testid="file-row"]');
  const n = await rows.count();
  const out: PreviewRow[] = [];
  for (let i = 0; i < n; i++) {
    const r = rows.nth(i);
    out.push({
      path: (await r.getAttribute('data-path')) ?? '',
      insertions: count(await r.locator('[data-testid="insertions"]').first().textContent()),
      deletions: count(await r.locator('[data-testid="deletions"]').first().textContent()),
    });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** Brings a panel's tab to the front (e.g. the preview after a diff editor opened over it). */
export async function focusTab(page: Page, title: string): Promise<void> {
  const tab = editorTab(page, title);
  await tab.waitFor({ state: 'visible', timeout: 15_000 });
  await tab.click();
}

/** Finds a branch row under a session (expanding the session and its "Branches" group). */
export async function branchRow(page: Page, sessionTitle: string, branch: string): Promise<Locator> {
  const session = await sessionRow(page, sessionTitle);
  await expandTreeRow(session);
  const row = treeRowByLabel(page, branch);
  if (!(await row.isVisible().catch(() => false))) await expandTreeRow(treeRowByLabel(page, 'Branches'));
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  return row;
}

/**
 * Switches branch from the tree: the branch row's context menu, then (if the command asks with a quick pick) the
 * branch's entry. Resolves once `switched()` holds.
 */
export async function switchBranchInTree(page: Page, sessionTitle: string, branch: string, switched: () => Promise<boolean>): Promise<void> {
  const row = await branchRow(page, sessionTitle, branch);
  await contextMenu(page, row, /Switch Branch/);
  const quickPick = page.locator('.quick-input-widget');
  await waitFor(
    `the switch to ${branch}`,
    async () => {
      if (await switched()) return true;
      if (await quickPick.isVisible().catch(() => false)) await pickQuickItem(page, branch);
      return false;
    },
    30_000,
  );
}
