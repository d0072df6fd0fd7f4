// The Transcript webview: the active branch of one session as a chat, virtualized. Only the rows in view (plus a
// margin) are in the DOM; rows arrive from the host in pages; measured heights replace estimates as rows render,
// and the row at the top of the viewport stays put while that happens.
import '../common/base.css';
import './transcript.css';
import type { RevealTarget, TranscriptResults, TranscriptToHost } from '../../../src/shared/protocol';
import { RequestClient } from '../../../src/shared/request-client';
import { transcriptToWebview } from '../../../src/shared/to-webview';
import type { TranscriptModel } from '../../../src/shared/view-models';
import { escapeHtml, escapeWithCode } from '../common/escape';
import { actionTarget, connectToHost } from '../common/vscode-api';
import { anchorAt, HeightMap, scrollTopFor, type ScrollAnchor, type VisibleRange } from './height-map';
import { renderPlaceholder, renderRow } from './render-row';
import { RowPages } from './row-pages';

const PAGE_SIZE = 200;
const ESTIMATED_ROW_HEIGHT = 110;
const OVERSCAN_PX = 800;
/** Up to this many rows everything is rendered: cheap, and the find widget (Ctrl+F) then sees every message. */
const RENDER_ALL_UP_TO = 300;
/** How long a revealed message stays highlighted. */
const HIGHLIGHT_MS = 2500;

interface SavedState {
  /** Lets the host's panel serializer reopen this session after a window reload. */
  sessionRef?: string;
  anchor?: ScrollAnchor;
  atBottom?: boolean;
  expanded?: string[];
}

const host = connectToHost<TranscriptToHost, typeof transcriptToWebview, SavedState>(transcriptToWebview);
const requests = new RequestClient<TranscriptToHost, TranscriptResults>(host.post);
const saved = host.getState() ?? {};

const expanded = new Set<string>(saved.expanded ?? []);
const branchesExpanded = new Set<string>();
const pages = new RowPages(PAGE_SIZE);
let heights = new HeightMap(0, ESTIMATED_ROW_HEIGHT);
let model: TranscriptModel | undefined;
let sessionRef = saved.sessionRef;
/** Where to put the viewport once rows exist (restored state, or kept across a refresh). */
let pendingAnchor: ScrollAnchor | undefined = saved.anchor;
let stickToBottom = saved.atBottom ?? false;
/** A message the host asked to show (a search hit, a checkpoint): highlighted once its row is rendered. */
let reveal: { entryId: string; index: number } | undefined;
/** The revealed message while its highlight lasts. */
let highlighted: string | undefined;
let highlightTimer: ReturnType<typeof setTimeout> | undefined;
/** Keyboard: the row that is the list's one Tab stop (roving tabindex), and whether it should have the focus. */
let activeIndex = 0;
let focusWanted = false;

const app = document.getElementById('app')!;
app.innerHTML = `
  <header class="toolbar" id="toolbar"><span class="codicon codicon-comment-discussion" aria-hidden="true"></span>
    <h1 id="title">Loading transcript…</h1><span id="branch" class="branch-chip"></span><span id="count" class="muted"></span>
    <span class="toolbar-actions">
      <button type="button" class="icon-button" data-action="compare-branches" data-testid="compare-branches" aria-label="Compare branches" title="Compare branches: this branch side by side with another"><span class="codicon codicon-git-compare" aria-hidden="true"></span></button>
      <button type="button" class="icon-button" data-action="go-first" aria-label="Go to the first message" title="Go to the first message"><span class="codicon codicon-arrow-up" aria-hidden="true"></span></button>
      <button type="button" class="icon-button" data-action="go-latest" aria-label="Go to the latest message" title="Go to the latest message"><span class="codicon codicon-arrow-down" aria-hidden="true"></span></button>
    </span></header>
  <div id="notice" class="notice" role="status" hidden></div>
  <div id="branch-banner" class="notice reveal-banner" data-testid="branch-banner" role="status" hidden></div>
  <div id="reveal-banner" class="notice reveal-banner" data-testid="reveal-banner" role="status" hidden></div>
  <main id="scroller" class="scroller" tabindex="-1" aria-label="Messages">
    <div id="top-spacer"></div><div id="rows" role="list" aria-label="Messages (arrow keys move between them)" aria-busy="true"></div><div id="bottom-spacer"></div>
  </main>`;
const scroller = document.getElementById('scroller')!;
const rowsEl = document.getElementById('rows')!;
const topSpacer = document.getElementById('top-spacer')!;
const bottomSpacer = document.getElementById('bottom-spacer')!;
const noticeEl = document.getElementById('notice')!;
const revealBanner = document.getElementById('reveal-banner')!;
const branchBanner = document.getElementById('branch-banner')!;

let noticeTimer: ReturnType<typeof setTimeout> | undefined;
function showNotice(message: string, severity: 'info' | 'error'): void {
  clearTimeout(noticeTimer);
  // Confirmations go away by themselves; errors stay until dismissed.
  if (severity === 'info') noticeTimer = setTimeout(() => (noticeEl.hidden = true), 4000);
  noticeEl.hidden = false;
  noticeEl.className = `notice ${severity}`;
  noticeEl.setAttribute('role', severity === 'error' ? 'alert' : 'status');
  noticeEl.innerHTML = `<span class="codicon codicon-${severity === 'error' ? 'error' : 'info'}" aria-hidden="true"></span><span>${escapeWithCode(message)}</span><button type="button" class="icon-button" data-action="dismiss-notice" aria-label="Dismiss" title="Dismiss"><span class="codicon codicon-close" aria-hidden="true"></span></button>`;
}

/** A branch shown without switching to it (a click on a branch only shows it): say so, with the explicit switch,
 *  and that a switch leaves the files as they are. */
function showBranchBanner(next: TranscriptModel): void {
  const active = next.activeBranch;
  branchBanner.hidden = active === undefined || active === next.branch;
  if (branchBanner.hidden || active === undefined) return;
  const shown = `<strong>${escapeHtml(next.branch)}</strong>`;
  const back = `<button type="button" class="secondary-button" data-action="show-branch" data-branch="${escapeHtml(active)}">Show ${escapeHtml(active)}</button>`;
  branchBanner.innerHTML = next.readOnly
    ? `<span class="codicon codicon-eye" aria-hidden="true"></span><span>Showing branch ${shown}; ${escapeHtml(next.readOnly.agent)} continues on ${escapeHtml(active)}.</span>${back}`
    : `<span class="codicon codicon-eye" aria-hidden="true"></span><span>Showing branch ${shown}, not the active branch ${escapeHtml(active)}. Switching to it changes the conversation only: files stay as they are.</span>` +
      `<button type="button" class="primary-button" data-action="switch-branch" data-testid="switch-to-shown" data-branch="${escapeHtml(next.branch)}">Switch to ${escapeHtml(next.branch)}</button>${back}`;
}

/** Scrolls so the message sits a third of the way down the viewport (context above it), then highlights it. */
function revealAt(entryId: string, index: number): void {
  revealBanner.hidden = true;
  // The host sends a reveal after the model it refers to; an index past the end would wait for a row forever.
  if (!model || !(index >= 0 && index < heights.length)) return;
  reveal = { entryId, index };
  stickToBottom = false;
  pendingAnchor = { index, offset: -Math.round((scroller.clientHeight || window.innerHeight) / 3) };
  render();
}

/** The message is not on the branch shown: say where it is, with a switch when there is a branch to switch to. */
function showElsewhere(target: Exclude<RevealTarget, { on: 'activeBranch' }>): void {
  const quote = `<q class="reveal-preview">${escapeHtml(target.preview)}</q>`;
  revealBanner.innerHTML =
    target.on === 'otherBranch'
      ? `<span class="codicon codicon-git-branch" aria-hidden="true"></span><span>This message is on branch <strong>${escapeHtml(target.branch)}</strong>, not on the active branch ${escapeHtml(target.activeBranch)}: ${quote}</span>` +
        `<button type="button" class="primary-button" data-action="show-branch" data-branch="${escapeHtml(target.branch)}">Show ${escapeHtml(target.branch)}</button>`
      : `<span class="codicon codicon-warning" aria-hidden="true"></span><span>This message is on no branch (the messages before it are missing from the file), so it cannot be shown here: ${quote}</span>`;
  revealBanner.innerHTML += `<button type="button" class="icon-button" data-action="dismiss-reveal" aria-label="Dismiss" title="Dismiss"><span class="codicon codicon-close" aria-hidden="true"></span></button>`;
  revealBanner.hidden = false;
}

/** Once the revealed row is rendered (its page arrived): highlight it for a moment and move focus to it. */
function settleReveal(): void {
  if (!reveal) return;
  const item = pages.get(reveal.index);
  if (!item) return; // its page is on its way
  if (item.entryId !== reveal.entryId) {
    // The transcript changed under the request: find the message among the rows held, else give up quietly.
    const moved = pages.indexOf(reveal.entryId);
    if (moved >= 0) revealAt(reveal.entryId, moved);
    else reveal = undefined;
    return;
  }
  const row = rendered.get(reveal.index);
  if (!row || row.el.classList.contains('placeholder') || !heights.isMeasured(reveal.index)) return;
  highlighted = reveal.entryId;
  reveal = undefined;
  clearTimeout(highlightTimer);
  highlightTimer = setTimeout(() => {
    highlighted = undefined;
    markHighlighted();
  }, HIGHLIGHT_MS);
  markHighlighted();
  setActive(Number(row.el.dataset.index));
  row.el.focus({ preventScroll: true });
}

function markHighlighted(): void {
  for (const row of rendered.values()) {
    const on = highlighted !== undefined && row.el.dataset.entryId === highlighted;
    row.el.classList.toggle('revealed', on);
    if (on) row.el.dataset.revealed = 'true';
    else delete row.el.dataset.revealed;
  }
}

function saveState(): void {
  host.setState({ sessionRef, anchor: anchorAt(heights, scroller.scrollTop), atBottom: stickToBottom, expanded: [...expanded] });
}

function isAtBottom(): boolean {
  return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 4;
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering the visible window

/** Keyed rows currently in the DOM: index → element (placeholders are keyed apart from real rows). */
const rendered = new Map<number, { key: string; el: HTMLElement }>();

function keyOf(index: number): string {
  const item = pages.get(index);
  if (!item) return `placeholder`;
  return `${item.entryId}|${expanded.has(item.entryId) ? 1 : 0}|${branchesExpanded.has(item.entryId) ? 1 : 0}`;
}

function createRow(index: number): HTMLElement {
  const item = pages.get(index);
  const template = document.createElement('template');
  template.innerHTML = item
    ? renderRow(item, {
        index,
        expanded: expanded.has(item.entryId),
        branchesExpanded: branchesExpanded.has(item.entryId),
        readOnly: model?.readOnly !== undefined,
      })
    : renderPlaceholder(index);
  const el = template.content.firstElementChild as HTMLElement;
  if (!item) el.style.height = `${heights.heightOf(index)}px`;
  el.setAttribute('role', 'listitem');
  el.setAttribute('aria-setsize', String(heights.length));
  el.setAttribute('aria-posinset', String(index + 1));
  el.tabIndex = -1;
  setControlsTabbable(el, false);
  return el;
}

function windowFor(scrollTop: number): VisibleRange {
  if (heights.length <= RENDER_ALL_UP_TO) return { start: 0, end: heights.length };
  return heights.visibleRange(scrollTop, scroller.clientHeight || window.innerHeight, OVERSCAN_PX);
}

let renderScheduled = false;
function scheduleRender(): void {
  if (renderScheduled) return;
  renderScheduled = true;
  requestAnimationFrame(() => {
    renderScheduled = false;
    render();
  });
}

function render(): void {
  if (!model) return;
  const total = heights.length;
  if (pendingAnchor && total > 0 && !stickToBottom) {
    scroller.scrollTop = scrollTopFor(heights, pendingAnchor);
  }
  const anchor = anchorAt(heights, scroller.scrollTop);
  const range = windowFor(scroller.scrollTop);

  for (const page of pages.claimMissing(range.start, range.end)) void loadPage(page.start, page.count);

  // Drop rows that left the window or changed (their page arrived, they were expanded…).
  for (const [index, row] of rendered) {
    if (index < range.start || index >= range.end || row.key !== keyOf(index)) {
      // The focus was in a row that is redrawn: it comes back to the same row once it is in the DOM again.
      if (row.el.contains(document.activeElement)) focusWanted = true;
      row.el.remove();
      rendered.delete(index);
    }
  }
  // Insert the missing ones in order; rows kept in place keep their focus.
  let previous: HTMLElement | null = null;
  for (let i = range.start; i < range.end; i++) {
    let row = rendered.get(i);
    if (!row) {
      row = { key: keyOf(i), el: createRow(i) };
      rendered.set(i, row);
      if (previous) previous.after(row.el);
      else rowsEl.prepend(row.el);
    }
    previous = row.el;
  }

  // Measure what is in the DOM, then keep the anchored row where it was.
  let changedAbove = false;
  for (const [index, row] of rendered) {
    if (row.el.classList.contains('placeholder')) continue;
    const delta = heights.set(index, row.el.getBoundingClientRect().height);
    if (delta !== 0 && index < anchor.index) changedAbove = true;
  }
  topSpacer.style.height = `${heights.offsetOf(range.start)}px`;
  bottomSpacer.style.height = `${Math.max(0, heights.totalHeight - heights.offsetOf(range.end))}px`;
  rowsEl.setAttribute('aria-busy', String(pages.loadedPageCount === 0 && total > 0));

  if (stickToBottom) {
    scroller.scrollTop = scroller.scrollHeight;
  } else if (pendingAnchor) {
    scroller.scrollTop = scrollTopFor(heights, pendingAnchor);
    // Keep restoring until the anchored row itself has been measured (its page may still be on its way).
    if (heights.isMeasured(Math.min(pendingAnchor.index, total - 1))) pendingAnchor = undefined;
  } else if (changedAbove) {
    scroller.scrollTop = scrollTopFor(heights, anchor);
  }
  if (highlighted !== undefined) markHighlighted();
  syncTabStop();
  // Not waiting for pendingAnchor: a message near the end leaves the view stuck to the bottom instead.
  if (reveal) settleReveal();
  // The window may have moved (heights changed): render again until it is stable.
  const next = windowFor(scroller.scrollTop);
  if (next.start !== range.start || next.end !== range.end) scheduleRender();
}

// ---------------------------------------------------------------------------------------------------------------
// Keyboard: the rows are one list with one Tab stop; arrows, Home/End and PageUp/PageDown move between messages,
// as in VS Code's own lists. Rows outside the rendered window are scrolled into it first. A row's own buttons and
// links are out of the Tab order (so Tab leaves the list in one step) until → or Enter moves into them; Escape or ←
// on one of them goes back to its row.

const CONTROLS = 'button, a[href], input, select, textarea, summary, [tabindex]:not([role="listitem"])';

/** Puts a row's buttons and links in the Tab order, or takes them out of it. */
function setControlsTabbable(row: HTMLElement, tabbable: boolean): void {
  for (const control of row.querySelectorAll<HTMLElement>(CONTROLS)) control.tabIndex = tabbable ? 0 : -1;
}

/** Moves the focus from a row into its first button (they become Tab stops while the focus is in the row). */
function enterRow(row: HTMLElement): boolean {
  const first = row.querySelector<HTMLElement>(CONTROLS);
  if (!first) return false;
  setControlsTabbable(row, true);
  first.focus();
  return true;
}

/** Makes `index` the list's Tab stop (tabindex 0 on its row, -1 on every other). */
function setActive(index: number): void {
  activeIndex = Math.max(0, Math.min(index, heights.length - 1));
  syncTabStop();
}

/** Exactly one rendered row is in the Tab order: the active one, else (scrolled away) the first one on screen. */
function syncTabStop(): void {
  let stop = rendered.get(activeIndex)?.el;
  if (!stop) {
    const top = anchorAt(heights, scroller.scrollTop).index;
    stop = rendered.get(top)?.el ?? rendered.values().next().value?.el;
  }
  for (const row of rendered.values()) row.el.tabIndex = row.el === stop ? 0 : -1;
  if (focusWanted) {
    const row = rendered.get(activeIndex)?.el;
    if (row) {
      focusWanted = false;
      row.focus({ preventScroll: true });
    }
  }
}

/** Moves the keyboard focus to a message, scrolling it into view (and into the rendered window) first. */
function focusRow(index: number): void {
  if (heights.length === 0) return;
  setActive(index);
  const row = rendered.get(activeIndex);
  const top = heights.offsetOf(activeIndex);
  const bottom = top + heights.heightOf(activeIndex);
  const view = { top: scroller.scrollTop, bottom: scroller.scrollTop + scroller.clientHeight };
  stickToBottom = false;
  if (row && top >= view.top && bottom <= view.bottom) {
    row.el.focus({ preventScroll: true });
    return;
  }
  // Like a list: the row comes in at the edge it moves towards (a tall row: its top).
  const offset = bottom > view.bottom && bottom - top <= scroller.clientHeight ? -(scroller.clientHeight - (bottom - top)) : 0;
  pendingAnchor = { index: activeIndex, offset };
  focusWanted = true;
  render();
}

function rowsPerPage(): number {
  const visible = heights.visibleRange(scroller.scrollTop, scroller.clientHeight || window.innerHeight, 0);
  return Math.max(1, visible.end - visible.start - 1);
}

rowsEl.addEventListener('keydown', (event) => {
  const target = event.target;
  if (!(target instanceof HTMLElement) || event.altKey || event.ctrlKey || event.metaKey) return;
  if (target.getAttribute('role') !== 'listitem') {
    // Inside a row the keys belong to its buttons and links, but Escape (and ← on a button) go back to the row.
    const row = target.closest<HTMLElement>('[role="listitem"]');
    if (row && (event.key === 'Escape' || (event.key === 'ArrowLeft' && target.tagName === 'BUTTON'))) {
      event.preventDefault();
      row.focus({ preventScroll: true });
    }
    return;
  }
  if ((event.key === 'ArrowRight' || event.key === 'Enter') && enterRow(target)) {
    event.preventDefault();
    return;
  }
  const index = Number(target.dataset.index);
  if (!Number.isInteger(index)) return;
  const last = heights.length - 1;
  const next = {
    ArrowDown: Math.min(last, index + 1),
    ArrowUp: Math.max(0, index - 1),
    Home: 0,
    End: last,
    PageDown: Math.min(last, index + rowsPerPage()),
    PageUp: Math.max(0, index - rowsPerPage()),
  }[event.key];
  if (next === undefined) return;
  event.preventDefault();
  focusRow(next);
});
// A row's buttons leave the Tab order again once the focus is out of them.
rowsEl.addEventListener('focusout', (event) => {
  const row = event.target instanceof Element ? (event.target.closest('[role="listitem"]') as HTMLElement | null) : null;
  const next = event.relatedTarget instanceof Node ? event.relatedTarget : null;
  if (row && event.target !== row && !(next && row.contains(next) && next !== row)) setControlsTabbable(row, false);
});
// Clicking or tabbing into a row (or a button in it) makes it the list's Tab stop.
rowsEl.addEventListener('focusin', (event) => {
  const row = event.target instanceof Element ? (event.target.closest('[role="listitem"]') as HTMLElement | null) : null;
  const index = Number(row?.dataset.index);
  if (row && Number.isInteger(index) && index !== activeIndex) setActive(index);
});

async function loadPage(start: number, count: number): Promise<void> {
  const version = pages.version;
  try {
    const result = await requests.request('rows', (requestId) => ({ type: 'rows', version, start, count, requestId }));
    if (pages.store(result.version, result.start, result.items)) scheduleRender();
  } catch (error) {
    pages.release(start);
    showNotice(`Could not load messages: ${(error as Error).message}`, 'error');
  }
}

function applyModel(version: number, next: TranscriptModel): void {
  const sameBranch = model !== undefined && model.sessionId === next.sessionId && model.branch === next.branch;
  const previousTotal = heights.length;
  if (model && !pendingAnchor && !stickToBottom) pendingAnchor = anchorAt(heights, scroller.scrollTop);
  // A switch to another branch answers the banner (or makes it stale).
  if (model && model.branch !== next.branch) revealBanner.hidden = true;
  model = next;
  pages.reset(version, next.total);
  // Appends keep earlier measurements; a branch switch shows other messages, so it starts over.
  if (previousTotal === 0) heights = new HeightMap(next.total, ESTIMATED_ROW_HEIGHT);
  else heights.resize(next.total, sameBranch ? previousTotal : 0);
  for (const row of rendered.values()) row.el.remove();
  rendered.clear();

  document.getElementById('title')!.textContent = next.title;
  document.title = `Transcript: ${next.title}`;
  const branch = document.getElementById('branch')!;
  branch.innerHTML = `<span class="codicon codicon-git-branch" aria-hidden="true"></span>${escapeHtml(next.branch)}`;
  const viewing = next.activeBranch !== undefined && next.activeBranch !== next.branch;
  branch.title = next.readOnly
    ? `Showing branch ${next.branch} (${next.readOnly.agent} session, read only)`
    : viewing
      ? `Showing branch ${next.branch} (not active; the active branch is ${next.activeBranch})`
      : `Active branch: ${next.branch}`;
  showBranchBanner(next);
  const source = next.source === 'agent-rewind' ? '' : ` · ${next.sourceLabel} session`;
  document.getElementById('count')!.textContent = `${next.total.toLocaleString('en-US')} ${next.total === 1 ? 'message' : 'messages'}${source}`;
  if (next.total === 0) {
    rowsEl.innerHTML = `<p class="empty">This branch has no messages yet.</p>`;
  } else {
    rowsEl.querySelector('.empty')?.remove();
  }
  render();
}

// ---------------------------------------------------------------------------------------------------------------
// Host messages and user actions

host.onMessage((message) => {
  if (requests.handle(message)) return;
  switch (message.type) {
    case 'model':
      sessionRef = message.sessionRef;
      applyModel(message.version, message.model);
      saveState();
      break;
    case 'loadError':
      document.getElementById('title')!.textContent = 'Transcript unavailable';
      rowsEl.setAttribute('aria-busy', 'false');
      showNotice(message.message, 'error');
      break;
    case 'notice':
      showNotice(message.message, message.severity);
      break;
    case 'revealEntry': {
      const target = message.target;
      if (target.on === 'activeBranch') revealAt(message.entryId, target.index);
      else showElsewhere(target);
      break;
    }
  }
});

document.addEventListener('click', (event) => {
  const el = actionTarget(event);
  if (!el) return;
  const entryId = el.dataset.target ?? '';
  switch (el.dataset.action) {
    case 'rewind-to-here':
      host.post({ type: 'rewindToHere', entryId });
      break;
    case 'fork':
      host.post({ type: 'fork', entryId });
      break;
    case 'label':
      host.post({ type: 'label', entryId });
      break;
    case 'copy-id':
      requests
        .request('copyId', (requestId) => ({ type: 'copyId', entryId, requestId }))
        .then(
          (r) => showNotice(`Copied message id ${r.copied}`, 'info'),
          (e: Error) => showNotice(e.message, 'error'),
        );
      break;
    case 'switch-branch':
      host.post({ type: 'switchBranch', branch: el.dataset.branch ?? '' });
      break;
    case 'show-branch':
      host.post({ type: 'showBranch', branch: el.dataset.branch ?? '' });
      break;
    case 'compare-branches':
      host.post({ type: 'compareBranches' });
      break;
    case 'toggle-expand':
      if (!expanded.delete(entryId)) expanded.add(entryId);
      saveState();
      render();
      break;
    case 'more-branches':
      branchesExpanded.add(entryId);
      render();
      break;
    case 'dismiss-notice':
      noticeEl.hidden = true;
      break;
    case 'dismiss-reveal':
      revealBanner.hidden = true;
      break;
    case 'go-first':
      stickToBottom = false;
      pendingAnchor = { index: 0, offset: 0 };
      render();
      break;
    case 'go-latest':
      pendingAnchor = undefined;
      stickToBottom = heights.length > 0;
      render();
      break;
  }
});

let saveTimer: ReturnType<typeof setTimeout> | undefined;
scroller.addEventListener(
  'scroll',
  () => {
    stickToBottom = isAtBottom() && heights.length > 0;
    scheduleRender();
    clearTimeout(saveTimer);
    saveTimer = setTimeout(saveState, 200);
  },
  { passive: true },
);
// A user scroll overrides a restore that is still waiting for its rows.
scroller.addEventListener('wheel', () => (pendingAnchor = undefined), { passive: true });
scroller.addEventListener('keydown', (event) => {
  // The list's own keys (handled above) set where to go; any other key scrolls by itself.
  if (!event.defaultPrevented) pendingAnchor = undefined;
});
new ResizeObserver(() => scheduleRender()).observe(scroller);

host.post({ type: 'ready' });
