// Playwright helpers for VS Code's workbench (1.100, as served by code-server). Selectors are VS Code's own
// stable class names and ARIA roles; webviews live in nested iframes, so they are found by walking page.frames().
import type { Frame, Locator, Page } from 'playwright-core';
import { waitFor } from './wait';

export async function waitForWorkbench(page: Page, timeoutMs = 90_000): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.part.activitybar').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
}

/** The activity-bar entry of a view container, by its title (aria-label may append a keybinding). */
export function activityBarItem(page: Page, title: string): Locator {
  return page.locator(`.part.activitybar .action-item[role="tab"][aria-label^="${title}"], .part.activitybar .action-item a[aria-label^="${title}"]`).first();
}

/** The Sessions view's pane (its header is hidden while it is the container's only view, so find it by aria-label). */
export function sessionsPane(page: Page): Locator {
  return page.locator('.part.sidebar .pane', { has: page.locator('.pane-header[aria-label^="Sessions"]') }).first();
}

/** Opens the Agent Rewind container and waits for its Sessions view. */
export async function openAgentRewind(page: Page): Promise<Locator> {
  const item = activityBarItem(page, 'Agent Rewind');
  await item.waitFor({ state: 'visible', timeout: 30_000 });
  const body = sessionsPane(page).locator('.pane-body');
  // Clicking an active container's icon hides the side bar: only click when the view is not already shown.
  if (!(await body.isVisible().catch(() => false))) await item.click();
  await body.waitFor({ state: 'visible', timeout: 30_000 });
  return sessionsPane(page);
}

/** A row of the Sessions tree whose text matches. */
export function treeRow(page: Page, text: string | RegExp): Locator {
  return page.locator('.part.sidebar .monaco-list-row[role="treeitem"]').filter({ hasText: text }).first();
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A row of the Sessions tree whose label (not its description) is exactly `label`. */
export function treeRowByLabel(page: Page, label: string): Locator {
  return page
    .locator('.part.sidebar .monaco-list-row[role="treeitem"]')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }) })
    .first();
}

export async function expandTreeRow(row: Locator): Promise<void> {
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  if ((await row.getAttribute('aria-expanded')) === 'false') {
    await row.locator('.monaco-tl-twistie').click();
    await waitFor('tree row to expand', async () => (await row.getAttribute('aria-expanded')) === 'true', 15_000);
  }
}

/** Shows a row's inline actions (hover) and clicks the one whose aria-label/title matches. */
export async function clickInlineAction(row: Locator, label: string | RegExp): Promise<void> {
  await row.hover();
  const matches = (name: string) => (typeof label === 'string' ? name.startsWith(label) : label.test(name));
  const actions = row.locator('.actions .action-label');
  await waitFor(
    `inline action ${label}`,
    async () => {
      const n = await actions.count();
      for (let i = 0; i < n; i++) {
        const a = actions.nth(i);
        const name = (await a.getAttribute('aria-label')) || (await a.getAttribute('title')) || '';
        if (matches(name)) {
          await a.click();
          return true;
        }
      }
      await row.hover();
      return false;
    },
    10_000,
  );
}

/**
 * Opens a row's context menu and picks an entry. VS Code's menus ignore a click that comes too soon after they
 * open, so the entry is focused by hovering and chosen with Enter, and the whole thing is retried until the menu
 * has closed.
 */
export async function contextMenu(page: Page, row: Locator, entry: string | RegExp): Promise<void> {
  const menu = page.locator('.context-view .monaco-menu').first();
  await waitFor(
    `context menu entry ${entry}`,
    async () => {
      if (!(await menu.isVisible().catch(() => false))) await row.click({ button: 'right' });
      const item = menu
        .locator('.action-item')
        .filter({ has: page.locator('.action-label', { hasText: entry }) })
        .first();
      await item.waitFor({ state: 'visible', timeout: 5_000 });
      await item.hover();
      await waitFor('the menu entry to take focus', async () => /\bfocused\b/.test((await item.getAttribute('class')) ?? ''), 5_000);
      await page.keyboard.press('Enter');
      await menu.waitFor({ state: 'hidden', timeout: 5_000 });
      return true;
    },
    30_000,
  );
}

/** The text of the status-bar entry matching `text` (codicons render as empty spans, so "$(history) " disappears). */
export function statusBarItem(page: Page, text: string | RegExp): Locator {
  return page.locator('.part.statusbar .statusbar-item').filter({ hasText: text }).first();
}

export async function statusBarText(page: Page, text: string | RegExp): Promise<string> {
  const item = statusBarItem(page, text);
  await item.waitFor({ state: 'visible', timeout: 30_000 });
  return ((await item.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** A notification toast whose message matches (waits for it). */
export async function waitForNotification(page: Page, text: string | RegExp, timeoutMs = 30_000): Promise<Locator> {
  const toast = page.locator('.notifications-toasts .notification-toast').filter({ hasText: text }).first();
  await toast.waitFor({ state: 'visible', timeout: timeoutMs });
  return toast;
}

export async function clickNotificationButton(toast: Locator, button: string): Promise<void> {
  await toast.hover(); // buttons of a toast stay put while hovered
  await toast.locator('.monaco-button', { hasText: button }).first().click();
}

/** Clears every notification (welcome prompts etc.) so nothing covers what the tests click. */
export async function clearNotifications(page: Page): Promise<void> {
  const toasts = page.locator('.notifications-toasts .notification-toast');
  if ((await toasts.count()) === 0) return;
  await runCommand(page, 'Notifications: Clear All Notifications');
  await waitFor('notifications to clear', async () => (await toasts.count()) === 0, 10_000);
}

/** Runs a command through the command palette by its full title ("Agent Rewind: Refresh Sessions"). */
export async function runCommand(page: Page, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // the palette can close again as it opens when something else takes the focus at that moment (VS Code's chat
  // reacting to files a rewind changed): open it again, a few times, rather than wait on a closed one
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(`>${title}`, { timeout: 5_000 });
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
      await page.keyboard.press('Escape');
    }
  }
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await row.click();
}

/** Picks an entry of the open quick pick. */
export async function pickQuickItem(page: Page, text: string | RegExp): Promise<void> {
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  await row.click();
}

/** The editor tab whose label matches. */
export function editorTab(page: Page, text: string | RegExp): Locator {
  return page.locator('.part.editor .tabs-container .tab').filter({ hasText: text }).first();
}

/**
 * The webview frame that currently contains `selector` (a webview's content sits two iframes deep). Frames come and
 * go as panels open and re-render, so every lookup walks page.frames() afresh.
 */
export async function webviewFrame(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  return waitFor(
    `a webview containing ${selector}`,
    async () => {
      for (const f of page.frames()) {
        if (f === page.mainFrame() || f.isDetached()) continue;
        const found = await f.$(selector).catch(() => null);
        if (found) return f;
      }
      return undefined;
    },
    timeoutMs,
  );
}

/** Re-finds the frame (it may have been replaced) and clicks `selector` inside it. */
export async function clickInWebview(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  return waitFor(
    `to click ${selector} in a webview`,
    async () => {
      const f = await webviewFrame(page, selector, timeoutMs);
      await f.locator(selector).first().click({ timeout: 5_000 });
      return f;
    },
    timeoutMs,
  );
}

/** Turns a boolean setting on or off the way a user does: the Settings editor, searched by id, its checkbox. */
export async function setBooleanSetting(page: Page, id: string, value: boolean): Promise<void> {
  await runCommand(page, 'Preferences: Open User Settings');
  const editor = page.locator('.settings-editor').first();
  await editor.waitFor({ state: 'visible', timeout: 30_000 });
  const search = editor.locator('.settings-header .suggest-input-container .monaco-editor').first();
  await search.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(`@id:${id}`);
  const item = editor.locator('.setting-item-bool').first();
  await item.waitFor({ state: 'visible', timeout: 30_000 });
  const checkbox = item.locator('.setting-value-checkbox').first();
  await waitFor(
    `${id} to be ${value}`,
    async () => {
      if ((await checkbox.getAttribute('aria-checked')) === String(value)) return true;
      await checkbox.click();
      return false;
    },
    15_000,
  );
}
