// Compare branches as an HTML string (pure; unit-tested in Node): where the branches part on top, the two branches
// side by side (A | B) with their messages after that point, then the files that differ between their snapshots.
// Nothing here changes anything: file rows open VS Code's diff editor, messages open the transcript. Every piece of
// session text goes through escapeHtml. The data-testid hooks are the ones the e2e test relies on.
import type { BranchCompareModel, BranchCompareSide, FileDifference, MessageRef } from '../../../src/shared/view-models';
import { countsAria } from '../common/counts';
import { escapeHtml, escapeWithCode, truncate } from '../common/escape';
import { displayPath } from '../../../src/shared/display-path';
import { KIND_META } from '../common/kinds';

/** Messages drawn per column; the rest are counted (the model itself is bounded too). */
export const LISTED_MESSAGES = 300;

export interface CompareUiState {
  /** The file whose diff editor is being opened. */
  opening?: string;
  /** Why the last diff could not be opened. */
  diffError?: string;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

const STATUS_META: Record<FileDifference['status'], { icon: string; word: string }> = {
  modified: { icon: 'diff-modified', word: 'differs' },
  added: { icon: 'diff-added', word: 'only on B' },
  deleted: { icon: 'diff-removed', word: 'only on A' },
  typeChanged: { icon: 'diff-renamed', word: 'file type differs' },
  modeChanged: { icon: 'diff-modified', word: 'permissions differ' },
};

function messageButton(m: MessageRef, testid: string): string {
  const meta = KIND_META[m.kind] ?? KIND_META.other;
  return (
    `<button type="button" class="message" data-action="open-message" data-testid="${testid}" data-entry-id="${escapeHtml(m.entryId)}" data-kind="${escapeHtml(m.kind)}" title="Open this message in the transcript">` +
    `<span class="codicon codicon-${meta.icon}" aria-hidden="true"></span><span class="role">${meta.label}</span>` +
    `<span class="preview-text">${escapeHtml(truncate(m.preview, 240))}</span></button>`
  );
}

function renderDivergence(model: BranchCompareModel): string {
  const body = model.divergence
    ? `<p class="muted">Both branches share the conversation up to and including:</p>${messageButton(model.divergence, 'divergence-message')}`
    : `<p class="muted">The branches share no message${model.a.session ? ' (two separate conversations)' : ''}: they part at the very start.</p>`;
  return `<section class="divergence" data-testid="divergence" aria-labelledby="h-divergence"><h2 id="h-divergence"><span class="codicon codicon-git-merge" aria-hidden="true"></span>Where they part</h2>${body}</section>`;
}

function renderSide(side: BranchCompareSide, letter: 'A' | 'B'): string {
  const total = side.messages.length + side.omitted;
  const shown = side.messages.slice(0, LISTED_MESSAGES);
  const more = total - shown.length;
  const list = shown.length
    ? `<ol class="messages">${shown.map((m) => `<li>${messageButton(m, 'message')}</li>`).join('')}${more > 0 ? `<li class="muted more">and ${plural(more, 'more message', 'more messages')}</li>` : ''}</ol>`
    : `<p class="muted empty">No messages after the point where they part.</p>`;
  const snap = side.snapshot
    ? `<p class="snapshot muted" data-testid="snapshot"><span class="codicon codicon-file-symlink-directory" aria-hidden="true"></span>${side.snapshot.kind === 'turn-end' ? 'Files as the agent left them after' : 'Files as of your message'} <span class="quoted">“${escapeHtml(truncate(side.snapshot.preview, 120))}”</span>${side.snapshot.afterDivergence ? '' : ' (before the branches part)'}</p>`
    : `<p class="snapshot muted" data-testid="snapshot"><span class="codicon codicon-circle-slash" aria-hidden="true"></span>No file snapshot on this branch</p>`;
  const id = `h-side-${letter.toLowerCase()}`;
  return (
    `<section class="column" data-testid="column-${letter.toLowerCase()}" data-branch="${escapeHtml(side.name)}" aria-labelledby="${id}">` +
    `<h2 id="${id}"><span class="side-letter" aria-label="Side ${letter}">${letter}</span><span class="codicon codicon-${side.isActive ? 'pass-filled' : 'git-branch'}" aria-hidden="true"></span>` +
    `<span class="branch-name" data-testid="branch-name">${escapeHtml(side.name)}</span>${side.isActive ? '<span class="chip">active</span>' : ''}</h2>` +
    (side.session
      ? `<p class="side-session muted" data-testid="side-session"><span class="codicon codicon-comment-discussion" aria-hidden="true"></span>of <span class="quoted">${escapeHtml(truncate(side.session.title, 120))}</span></p>`
      : '') +
    `<p class="muted count" data-testid="message-count">${plural(total, 'message', 'messages')} after they part</p>${list}${snap}</section>`
  );
}

function renderFileRow(f: FileDifference, ui: CompareUiState): string {
  const meta = STATUS_META[f.status] ?? STATUS_META.modified;
  const counts = f.binary
    ? `<span class="binary muted">binary</span>`
    : `<span class="ins" data-testid="insertions" title="${plural(f.insertions, 'line', 'lines')} only on B">${f.insertions}</span>` +
      `<span class="del" data-testid="deletions" title="${plural(f.deletions, 'line', 'lines')} only on A">${f.deletions}</span>`;
  const opening = ui.opening === f.path;
  return (
    `<li><button type="button" class="file-row" data-testid="file-row" data-action="open-diff" data-path="${escapeHtml(f.path)}" data-status="${f.status}" title="Open the diff of ${escapeHtml(f.path)}: A ↔ B"${opening ? ' aria-busy="true"' : ''}>` +
    `<span class="codicon codicon-${opening ? 'loading codicon-modifier-spin' : meta.icon} status-${f.status}" aria-hidden="true"></span><span class="path">${escapeHtml(displayPath(f.path))}</span>` +
    `<span class="status-word muted">${meta.word}</span><span class="counts"${f.binary ? '' : countsAria(f.insertions, f.deletions)}>${counts}</span></button></li>`
  );
}

function renderFiles(model: BranchCompareModel, ui: CompareUiState): string {
  const f = model.files;
  let body: string;
  if (!f.ok) {
    body = `<p class="problem" data-testid="files-error" role="status"><span class="codicon codicon-info" aria-hidden="true"></span>${escapeWithCode(f.error)}</p>`;
  } else if (f.files.length === 0) {
    body = `<p class="muted" data-testid="files-none">${f.sameSnapshot ? 'Both branches are at the same file snapshot (taken before they part), so there is no file difference to show.' : 'The files are the same on both branches.'}</p>`;
  } else {
    body =
      `<p class="totals" data-testid="files-totals">${plural(f.files.length, 'file differs', 'files differ')}, ` +
      `<span class="counts-pair"${countsAria(f.insertions, f.deletions)}><span class="ins" title="lines only on B">${f.insertions}</span> <span class="del" title="lines only on A">${f.deletions}</span></span> <span class="muted">from A to B (click a file to see its diff)</span></p>` +
      `<ul class="file-list">${f.files.map((x) => renderFileRow(x, ui)).join('')}</ul>`;
  }
  const error = ui.diffError
    ? `<p class="problem error" role="alert" data-testid="diff-error"><span class="codicon codicon-error" aria-hidden="true"></span>${escapeWithCode(ui.diffError)}</p>`
    : '';
  return `<section class="files" data-testid="files" aria-labelledby="h-files"><h2 id="h-files"><span class="codicon codicon-files" aria-hidden="true"></span>Files that differ</h2>${error}${body}</section>`;
}

export function renderCompare(model: BranchCompareModel, ui: CompareUiState = {}): string {
  // Two sessions: each column names its own; the heading names both.
  const title = model.a.session && model.b.session ? `${model.a.session.title} ↔ ${model.b.session.title}` : model.title;
  const readOnly = model.readOnly ? `<p class="muted">${escapeHtml(model.readOnly.agent)} session: shown, never changed.</p>` : '';
  return (
    `<header class="compare-head"><h1><span class="codicon codicon-git-compare" aria-hidden="true"></span>Compare branches` +
    `<span class="session-title muted" data-testid="session-title">${escapeHtml(truncate(title, 160))}</span>` +
    `<span class="head-actions"><button type="button" class="icon-button" data-action="swap" aria-label="Swap the two sides" title="Swap A and B"><span class="codicon codicon-arrow-swap" aria-hidden="true"></span></button>` +
    `<button type="button" class="icon-button" data-action="refresh" aria-label="Compare again" title="Compare again"><span class="codicon codicon-refresh" aria-hidden="true"></span></button></span></h1>${readOnly}</header>` +
    renderDivergence(model) +
    `<div class="columns">${renderSide(model.a, 'A')}${renderSide(model.b, 'B')}</div>` +
    renderFiles(model, ui)
  );
}

export function renderLoading(branchA?: string, branchB?: string): string {
  const what = branchA && branchB ? ` “${escapeHtml(branchA)}” with “${escapeHtml(branchB)}”` : ' the branches';
  return `<p class="loading" role="status"><span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true"></span> Comparing${what}…</p>`;
}

export function renderLoadError(message: string): string {
  return (
    `<p class="problem error" role="alert" data-testid="compare-error"><span class="codicon codicon-error" aria-hidden="true"></span>${escapeWithCode(message)}</p>` +
    `<p><button type="button" class="secondary-button" data-action="refresh">Try again</button></p>`
  );
}
