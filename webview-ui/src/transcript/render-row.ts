// One transcript row as an HTML string (pure, so it is unit-tested in Node). All session text is escaped or
// goes through the safe markdown renderer. The data-* hooks are the ones the e2e tests rely on.
import type { MessageKind, TranscriptItem } from '../../../src/shared/view-models';
import { escapeHtml } from '../common/escape';
import { KIND_META } from '../common/kinds';
import { renderMarkdown } from '../common/markdown';

export { KIND_META };

/** Tool output and long messages are cut here until the user asks for all of it (keeps rows cheap). */
export const COLLAPSED_CHARS = 2_000;
export const COLLAPSED_LINES = 30;
/** Branch buttons shown inline at a branch point; more are behind "+N more". */
export const INLINE_BRANCHES = 4;

export interface RowOptions {
  index: number;
  expanded: boolean;
  branchesExpanded: boolean;
  /** Another agent's session: nothing here writes to it (no fork, no label); Rewind to here makes a new session. */
  readOnly?: boolean;
}

/** Conversations a tool call started (Claude Code subagents), folded under it. */
function renderSubagents(item: TranscriptItem): string {
  if (!item.subagents?.length) return '';
  return item.subagents
    .map(
      (s) =>
        `<details class="subagent"><summary><span class="codicon codicon-hubot" aria-hidden="true"></span>Subagent: ${escapeHtml(s.title)} · ${s.messages} ${s.messages === 1 ? 'message' : 'messages'}</summary><div class="subagent-body">${renderMarkdown(s.markdown)}</div></details>`,
    )
    .join('');
}

/** The part of a long text shown while the row is collapsed, or null when the whole text fits. */
export function collapsedText(text: string): string | null {
  let cut = Math.min(text.length, COLLAPSED_CHARS);
  let lines = 0;
  for (let i = 0; i < cut; i++) {
    if (text.charCodeAt(i) === 10 && ++lines === COLLAPSED_LINES) {
      cut = i;
      break;
    }
  }
  if (cut >= text.length) return null;
  // Never split a surrogate pair.
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut);
}

function iconButton(action: string, icon: string, label: string, entryId: string): string {
  return `<button type="button" class="icon-button" data-action="${action}" data-target="${escapeHtml(entryId)}" aria-label="${escapeHtml(label)}" title="${escapeHtml(label)}"><span class="codicon codicon-${icon}" aria-hidden="true"></span></button>`;
}

function formatTime(timestamp: string | undefined): string {
  if (!timestamp) return '';
  const d = new Date(timestamp);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  const text = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return `<time datetime="${escapeHtml(d.toISOString())}">${text}</time>`;
}

function renderBranches(item: TranscriptItem, expanded: boolean, viewOnly: boolean): string {
  const branches = item.otherBranches ?? [];
  if (branches.length === 0) return '';
  const shown = expanded ? branches : branches.slice(0, INLINE_BRANCHES);
  const count = branches.length === 1 ? '1 other branch' : `${branches.length} other branches`;
  const buttons = shown
    .map(
      (b) =>
        `<button type="button" class="branch-button" data-action="show-branch" data-branch="${escapeHtml(b.name)}" title="Show branch ${escapeHtml(b.name)}${viewOnly ? '' : ' (nothing is switched: the transcript offers the switch)'}"><span class="codicon codicon-git-branch" aria-hidden="true"></span>${escapeHtml(b.name)}</button>`,
    )
    .join('');
  const more =
    branches.length > shown.length
      ? `<button type="button" class="link-button" data-action="more-branches" data-target="${escapeHtml(item.entryId)}">+${branches.length - shown.length} more</button>`
      : '';
  return `<div class="branches" role="group" aria-label="${count} leave here"><span class="branches-label"><span class="codicon codicon-repo-forked" aria-hidden="true"></span>${count}:</span>${buttons}${more}</div>`;
}

/** What a screen reader says when the row gets the focus: who, the tool, when, and the start of the text (no markup). */
export function rowLabel(item: TranscriptItem, label: string): string {
  const text = item.markdown
    .replace(/^\s*(`{3,}|~{3,}).*$/gm, '')
    .replace(/^\s*(#{1,6}|>+)\s?/gm, '')
    .replace(/\*\*|__|`+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const head = [label, item.title, item.notice].filter(Boolean).join(', ');
  return text ? `${head}: ${text.length > 300 ? `${text.slice(0, 299)}…` : text}` : head;
}

export function renderRow(item: TranscriptItem, options: RowOptions): string {
  // The kind ends up in a class name and an attribute: only known kinds get there.
  const kind: MessageKind = Object.hasOwn(KIND_META, item.kind) ? item.kind : 'other';
  const meta = KIND_META[kind];
  const id = escapeHtml(item.entryId);
  const collapsed = collapsedText(item.markdown);
  const shown = options.expanded || collapsed === null ? item.markdown : `${collapsed}…`;
  // The engine already fences tool output and commands, so everything is markdown. A fence cut by collapsing is
  // closed by the renderer at the end of the text.
  const body = item.preformatted ? `<div class="plain-text">${escapeHtml(shown)}</div>` : renderMarkdown(shown);

  const title = item.title ? `<span class="row-title">${escapeHtml(item.title)}</span>` : '';
  const label = item.label
    ? `<span class="label-badge" title="Label"><span class="codicon codicon-tag" aria-hidden="true"></span>${escapeHtml(item.label)}</span>`
    : '';
  const error = item.notice
    ? `<span class="${item.isError ? 'error-badge' : 'notice-badge'}" data-testid="notice"><span class="codicon codicon-${item.isError ? 'error' : 'warning'}" aria-hidden="true"></span>${escapeHtml(item.notice)}</span>`
    : item.isError
      ? `<span class="error-badge"><span class="codicon codicon-error" aria-hidden="true"></span>error</span>`
      : '';
  // The snapshot's size, not a change count: "5 files" beside a prompt read as "5 files changed".
  const snapshotFiles = item.fileCheckpoint ? `${item.fileCheckpoint.files} ${item.fileCheckpoint.files === 1 ? 'file' : 'files'}` : '';
  const checkpoint =
    kind === 'user' && item.fileCheckpoint
      ? `<span class="checkpoint-badge" title="A snapshot of the workspace (${snapshotFiles}) was taken when this message was sent: Rewind to here can put the files back as they were then"><span class="codicon codicon-save" aria-hidden="true"></span>snapshot</span>`
      : '';
  // Rewind and Fork both start a branch at the message; what tells them apart is said where the choice is made.
  const rewindTip = options.readOnly
    ? 'Rewind to here: preview continuing in a new session from just before this message, with the files as they were when it was sent. Nothing changes until you confirm.'
    : 'Rewind to here: preview going back to this message, a new branch from here and the files as they were when it was sent. Nothing changes until you confirm.';
  const rewind =
    kind === 'user'
      ? `<button type="button" class="text-button" data-action="rewind-to-here" data-target="${id}" title="${rewindTip}"><span class="codicon codicon-history" aria-hidden="true"></span>Rewind to here</button>`
      : '';
  const actions = [
    rewind,
    options.readOnly
      ? ''
      : iconButton('fork', 'repo-forked', 'Fork from this message: a new branch from here, at once, conversation only (files stay as they are)', item.entryId),
    options.readOnly ? '' : iconButton('label', 'tag', 'Label this message', item.entryId),
    iconButton('copy-id', 'copy', 'Copy message id', item.entryId),
  ].join('');
  const inherited = item.inherited
    ? `<span class="inherited-badge" title="Copied from the session this one was forked from"><span class="codicon codicon-repo-forked" aria-hidden="true"></span>from the original session</span>`
    : '';
  const toggle =
    collapsed === null
      ? ''
      : `<button type="button" class="link-button" data-action="toggle-expand" data-target="${id}" aria-expanded="${options.expanded}">${options.expanded ? 'Show less' : `Show all (${item.markdown.length.toLocaleString('en-US')} characters)`}</button>`;

  return (
    `<article class="row kind-${kind}${item.isError ? ' is-error' : ''}" data-entry-id="${id}" data-kind="${kind}" data-index="${options.index}" aria-label="${escapeHtml(rowLabel(item, meta.label))}">` +
    `<header class="row-head"><span class="codicon codicon-${meta.icon} role-icon" aria-hidden="true"></span><span class="role">${meta.label}</span>${title}${error}${label}${checkpoint}${inherited}${formatTime(item.timestamp)}<span class="actions">${actions}</span></header>` +
    `<div class="row-body">${body}</div>${toggle}${renderSubagents(item)}${renderBranches(item, options.branchesExpanded, options.readOnly === true)}</article>`
  );
}

/** A row whose page has not arrived yet: same height estimate, no actions, no data-entry-id. */
export function renderPlaceholder(index: number): string {
  return `<div class="row placeholder" data-index="${index}" aria-busy="true"><span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true"></span> Loading…</div>`;
}
