// The Rewind preview as an HTML string (pure; unit-tested in Node). It only describes: nothing here changes
// anything, and only the Confirm button asks the host to act. The data-testid/data-action hooks are the ones
// the e2e tests rely on.
import type { FileChangePreview, FileHunk, RewindPreviewModel } from '../../../src/shared/view-models';
import { countsAria } from '../common/counts';
import { escapeHtml, escapeWithCode, truncate } from '../common/escape';
import { displayPath } from '../../../src/shared/display-path';
import { KIND_META } from '../common/kinds';
import {
  confirmState,
  effectiveMode,
  fileFate,
  fileTotals,
  type FileFate,
  partialCounts,
  tickedHunks,
  modeOptionsFor,
  modeAvailability,
  problemsOf,
  touchesConversation,
  touchesFiles,
  type PreviewUiState,
} from './view-state';

/** Messages listed by name under "stay on the old branch"; the rest are counted. */
export const LISTED_MESSAGES = 20;

const STATUS_META: Record<FileChangePreview['status'], { icon: string; word: string }> = {
  modified: { icon: 'diff-modified', word: 'modified' },
  added: { icon: 'diff-added', word: 'new since' },
  deleted: { icon: 'diff-removed', word: 'deleted since' },
  typeChanged: { icon: 'diff-renamed', word: 'type changed' },
  modeChanged: { icon: 'diff-modified', word: 'permissions changed' },
};

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function section(id: string, icon: string, title: string, body: string, dimmed: boolean, note?: string): string {
  return (
    `<section class="part${dimmed ? ' dimmed' : ''}" id="part-${id}" aria-labelledby="h-${id}">` +
    `<h2 id="h-${id}"><span class="codicon codicon-${icon}" aria-hidden="true"></span>${escapeHtml(title)}` +
    (note ? `<span class="part-note">${escapeHtml(note)}</span>` : '') +
    `</h2>${body}</section>`
  );
}

/** A name that opens a sentence ("a new Claude Code session") starts with a capital there. */
function sentenceStart(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function unavailable(what: string): string {
  return `<p class="muted"><span class="codicon codicon-circle-slash" aria-hidden="true"></span> ${escapeHtml(what)} (see above).</p>`;
}

/** The conversation of a VS Code chat session: VS Code rewinds it, with its own commands, which these buttons run. */
function renderEditorChat(offer: NonNullable<RewindPreviewModel['editorChat']>, busy: boolean): string {
  const disabled = busy ? ' disabled' : '';
  const body =
    `<p data-testid="editor-chat-split"><strong>agent-rewind</strong> rewinds the files (Confirm below), terminal changes included, and never writes ${escapeHtml(offer.agent)}'s own files, so the conversation stays as it is. <strong>VS Code</strong> rewinds the conversation, with its own Restore Checkpoint:</p>` +
    `<p class="editor-chat-actions"><button type="button" class="secondary-button" data-action="editor-chat-restore" data-testid="editor-chat-restore"${disabled}>Restore VS Code's checkpoint</button> ` +
    `<button type="button" class="secondary-button" data-action="editor-chat-open" data-testid="editor-chat-open"${disabled}>Open in ${escapeHtml(offer.agent)}</button></p>` +
    `<p class="muted">Restore VS Code's checkpoint opens this session in VS Code's chat and runs its Restore Checkpoint on this request: VS Code asks first when the requests made edits, sets this request and the later ones aside (they are dropped when you send the next one), puts this request's text back into the chat input to edit and send again, and puts back the files its edit tools changed, not what the terminal changed. After Confirm those files are already as they were; a change of yours that Confirm kept in such a file is overwritten by VS Code. Open in ${escapeHtml(offer.agent)} only shows the session.</p>`;
  return section('conversation', 'comment-discussion', `Conversation (in ${offer.agent})`, body, false);
}

function renderConversation(model: RewindPreviewModel, dimmed: boolean, busy: boolean): string {
  const c = model.conversation;
  if (!c.ok && model.editorChat) return renderEditorChat(model.editorChat, busy);
  if (!c.ok) return section('conversation', 'comment-discussion', 'Conversation', unavailable('Nothing will happen to the conversation'), true);
  const left = c.messagesLeftOnOldBranch;
  const items = left
    .slice(0, LISTED_MESSAGES)
    .map((m) => {
      const meta = KIND_META[m.kind] ?? KIND_META.other;
      return `<li data-entry-id="${escapeHtml(m.entryId)}"><span class="codicon codicon-${meta.icon}" aria-hidden="true"></span><span class="role">${meta.label}</span> <span class="preview-text">${escapeHtml(truncate(m.preview, 160))}</span></li>`;
    })
    .join('');
  const more = left.length > LISTED_MESSAGES ? `<li class="muted">and ${plural(left.length - LISTED_MESSAGES, 'more message', 'more messages')}</li>` : '';
  if (c.fork) {
    const forkBody =
      `<p>The ${escapeHtml(c.fork.agent)} session itself is not changed. <strong class="branch-name" data-testid="new-branch">${escapeHtml(sentenceStart(c.newBranchName))}</strong> is written beside it, holding the conversation up to just before this message, so you can send it again (or something else) there: <code>${escapeHtml(c.fork.resumeHint)}</code>.</p>` +
      (left.length === 0
        ? ''
        : `<p>${plural(left.length, 'message stays', 'messages stay')} in the original session only:</p><ul class="left-behind">${items}${more}</ul>`);
    return section('conversation', 'comment-discussion', 'Conversation', forkBody, dimmed, dimmed ? 'not part of this rewind' : undefined);
  }
  const body =
    `<p>A new branch <strong class="branch-name" data-testid="new-branch">${escapeHtml(c.newBranchName)}</strong> starts at this message and becomes the active branch.</p>` +
    (left.length === 0
      ? `<p class="muted">No messages come after this one on <strong>${escapeHtml(c.currentBranch)}</strong>.</p>`
      : `<p>${plural(left.length, 'message stays', 'messages stay')} on <strong>${escapeHtml(c.currentBranch)}</strong>, where you can switch back at any time:</p><ul class="left-behind">${items}${more}</ul>`);
  return section('conversation', 'comment-discussion', 'Conversation', body, dimmed, dimmed ? 'not part of this rewind' : undefined);
}

function renderState(model: RewindPreviewModel, dimmed: boolean): string {
  const s = model.state;
  if (!s.ok) return section('state', 'database', 'Session state and artifacts', unavailable('Session state and artifacts are not shown'), true);
  if (s.changes.length === 0 && s.artifacts.length === 0) {
    return section('state', 'database', 'Session state and artifacts', `<p class="muted">No session state or artifact changes.</p>`, dimmed);
  }
  const value = (v: string | null) => (v === null ? '<em class="muted">deleted</em>' : `<code>${escapeHtml(truncate(v, 200))}</code>`);
  const rows = s.changes
    .map(
      (c) =>
        `<tr><td><code>${escapeHtml(c.key)}</code></td><td class="muted">${escapeHtml(c.scope)}</td><td>${value(c.now)}</td><td>${value(c.after)}</td></tr>`,
    )
    .join('');
  const table = s.changes.length
    ? `<table class="state-table"><thead><tr><th scope="col">Key</th><th scope="col">Scope</th><th scope="col">Now</th><th scope="col">After</th></tr></thead><tbody>${rows}</tbody></table>`
    : '';
  const artifacts = s.artifacts
    .map((a) => {
      const now = a.currentVersion === null ? 'not present' : `version ${a.currentVersion}`;
      const after = a.restoredVersion === null ? 'removed' : `version ${a.restoredVersion} restored (saved as a new version)`;
      return `<li><span class="codicon codicon-file-binary" aria-hidden="true"></span><code>${escapeHtml(a.name)}</code>: ${now} → ${after}</li>`;
    })
    .join('');
  const body = `${table}${artifacts ? `<ul class="artifacts">${artifacts}</ul>` : ''}`;
  return section('state', 'database', 'Session state and artifacts', body, dimmed, dimmed ? 'not part of this rewind' : undefined);
}

/** Who changed a file another session's turn changed (or several sessions' turns at once), for its tooltip. */
function otherSessionTitle(f: FileChangePreview): string {
  if (f.changedBy === 'several') return `Changed while several sessions worked at once (${(f.sessions ?? []).join(', ')}): this rewind leaves it as it is`;
  return `Changed by session ${f.otherSession ?? '?'} (prompt ${f.otherPrompt ?? '?'}): this rewind leaves it as it is`;
}

/** The tick that puts a file in or out of the rewind (a real checkbox: Tab reaches it, Space toggles it). Mixed
 *  (main.ts sets `indeterminate` on data-mixed) when only some of its hunks are ticked. */
function renderTick(f: FileChangePreview, fate: FileFate, busy: boolean): string {
  const shown = escapeHtml(displayPath(f.path));
  const title =
    fate === 'restore'
      ? `Untick to leave ${shown} as it is now`
      : fate === 'partial'
        ? `Only some hunks of ${shown} are ticked: tick to bring the whole file back as it was at this message`
        : `Tick to bring ${shown} back as it was at this message`;
  return (
    `<input type="checkbox" class="file-tick" data-testid="file-tick" data-action="tick" data-path="${escapeHtml(f.path)}"${fate === 'restore' ? ' checked' : ''}${fate === 'partial' ? ' data-mixed="true"' : ''}${busy ? ' disabled' : ''}` +
    ` aria-label="Rewind ${shown}" title="${title}">`
  );
}

/** Why a listed file can only be taken back whole, said in its row (its counts already say "binary"); undefined for a
 *  text file with hunks to show, '' for a new or deleted file (its status says it). */
function wholeFileOnly(f: FileChangePreview): string | undefined {
  if (f.binary) return 'whole file only';
  if (f.status === 'modeChanged') return 'permissions changed: whole file only';
  if (f.status === 'typeChanged') return 'kind changed: whole file only';
  return f.status === 'modified' ? undefined : '';
}

/** The button that shows or hides a text file's hunks. */
function renderHunksToggle(f: FileChangePreview, index: number, open: boolean): string {
  const shown = escapeHtml(displayPath(f.path));
  return (
    `<button type="button" class="icon-button hunks-toggle" data-testid="hunks-toggle" data-action="toggle-hunks" data-path="${escapeHtml(f.path)}"` +
    ` aria-expanded="${open}" aria-controls="hunks-${index}" aria-label="${open ? 'Hide' : 'Show'} the hunks of ${shown}" title="${open ? 'Hide' : 'Choose'} the hunks of ${shown} to bring back">` +
    `<span class="codicon codicon-chevron-${open ? 'down' : 'right'}" aria-hidden="true"></span><span class="hunks-word">hunks</span></button>`
  );
}

/** One hunk with its tick: where it is and its lines ('-' at the message, '+' now). */
function renderHunk(f: FileChangePreview, h: FileHunk, of: number, ticked: boolean, busy: boolean): string {
  const shown = escapeHtml(displayPath(f.path));
  const where =
    h.nowLines === 0 ? `after line ${h.nowStart - 1}` : h.nowLines === 1 ? `line ${h.nowStart}` : `lines ${h.nowStart}–${h.nowStart + h.nowLines - 1}`;
  const lines =
    h.lines.map((l) => `<span class="hunk-line ${l.kind === '+' ? 'line-added' : 'line-removed'}">${l.kind}${escapeHtml(l.text)}</span>`).join('') +
    (h.linesNotShown ? `<span class="hunk-line muted">… ${plural(h.linesNotShown, 'more line', 'more lines')}</span>` : '');
  return (
    `<li class="hunk" data-testid="hunk" data-path="${escapeHtml(f.path)}" data-hunk="${h.index}">` +
    `<label class="hunk-head"><input type="checkbox" class="hunk-tick" data-testid="hunk-tick" data-action="hunk-tick" data-path="${escapeHtml(f.path)}" data-hunk="${h.index}"${ticked ? ' checked' : ''}${busy ? ' disabled' : ''}` +
    ` aria-label="Rewind hunk ${h.index} of ${of} of ${shown} (${where} now)">` +
    `<span>Hunk ${h.index} of ${of} · ${where} now</span><span class="counts"${countsAria(h.insertions, h.deletions)}><span class="ins">${h.insertions}</span><span class="del">${h.deletions}</span></span></label>` +
    `<pre class="hunk-lines">${lines}</pre></li>`
  );
}

/** The hunks of an expanded row: its hunks with their ticks, or why there are none to choose from. */
function renderHunks(model: RewindPreviewModel, ui: PreviewUiState, f: FileChangePreview, index: number): string {
  const h = ui.hunks?.[f.path];
  const body =
    h === undefined || h === 'loading'
      ? `<p class="muted" role="status">Working out the hunks…</p>`
      : 'error' in h
        ? `<p class="muted" data-testid="hunks-unavailable">The hunks can’t be shown: ${escapeHtml(h.error)}</p>`
        : !h.ok
          ? `<p class="muted" data-testid="hunks-unavailable">${escapeHtml(sentenceStart(h.reason))}.</p>`
          : `<ul class="hunk-list">${h.hunks.map((x) => renderHunk(f, x, h.hunks.length, tickedHunks(model, ui, f).includes(x.index), ui.busy)).join('')}</ul>`;
  return `<div class="hunks" id="hunks-${index}" data-testid="hunks" data-path="${escapeHtml(f.path)}">${body}</div>`;
}

function renderFileRow(model: RewindPreviewModel, ui: PreviewUiState, f: FileChangePreview, index: number): string {
  const fate = fileFate(model, ui, f);
  const busy = ui.busy;
  const kept = fate !== 'restore' && fate !== 'partial';
  const meta = STATUS_META[f.status] ?? STATUS_META.modified;
  const part = fate === 'partial' ? partialCounts(ui, f) : undefined;
  const ins = part?.insertions ?? f.insertions;
  const del = part?.deletions ?? f.deletions;
  const counts = f.binary
    ? `<span class="binary muted">binary</span><span data-testid="insertions" hidden>${f.insertions}</span><span data-testid="deletions" hidden>${f.deletions}</span>`
    : `<span class="ins" data-testid="insertions" title="${plural(ins, 'line', 'lines')} added since this message (the rewind removes them)">${ins}</span><span class="del" data-testid="deletions" title="${plural(del, 'line', 'lines')} removed since this message (the rewind brings them back)">${del}</span>`;
  const flag = f.userModified
    ? `<span class="user-flag${kept ? ' kept' : ''}" data-testid="user-modified" title="You changed this file by hand since this message, outside any agent's turn"><span class="codicon codicon-person" aria-hidden="true"></span>${kept ? 'changed by you — kept' : 'changed by you — overwritten'}</span>`
    : fate === 'skip' && (f.changedBy === 'other-session' || f.changedBy === 'several')
      ? `<span class="skip-flag muted" data-testid="other-session" title="${escapeHtml(otherSessionTitle(f))}"><span class="codicon codicon-hubot" aria-hidden="true"></span>changed by ${f.changedBy === 'several' ? 'several sessions' : 'another session'} — kept</span>`
      : fate === 'skip'
        ? `<span class="skip-flag muted">left as it is (see below)</span>`
        : fate === 'unticked'
          ? `<span class="skip-flag muted" data-testid="unticked">not chosen — kept</span>`
          : part
            ? `<span class="skip-flag muted" data-testid="partial">${part.hunks.length === 1 ? 'hunk' : 'hunks'} ${part.hunks.join(', ')} of ${part.of} — the rest kept</span>`
            : '';
  const whole = wholeFileOnly(f);
  const open = whole === undefined && ui.expanded?.[f.path] === true;
  const side =
    whole === undefined
      ? renderHunksToggle(f, index, open)
      : whole
        ? `<span class="whole-only muted" data-testid="whole-file-only">${escapeHtml(whole)}</span>`
        : '';
  return (
    `<li class="file-item">${renderTick(f, fate, busy)}<button type="button" class="file-row${kept ? ' kept' : ''}" data-testid="file-row" data-action="open-diff" data-path="${escapeHtml(f.path)}" title="Open the diff of ${escapeHtml(f.path)}: at this message ↔ now">` +
    `<span class="codicon codicon-${meta.icon} status-${f.status}" aria-hidden="true"></span><span class="path">${escapeHtml(displayPath(f.path))}</span>` +
    `<span class="status-word muted">${meta.word}</span>${flag}<span class="counts"${f.binary ? '' : countsAria(ins, del)}>${counts}</span></button>${side}` +
    `${open ? renderHunks(model, ui, f, index) : ''}</li>`
  );
}

function renderFiles(model: RewindPreviewModel, ui: PreviewUiState, dimmed: boolean): string {
  const f = model.files;
  if (!f.ok) return section('files', 'files', 'Files', unavailable('No file will be changed'), true);
  const userModified = f.files.filter((x) => x.userModified).length;
  const t = fileTotals(model, ui);
  const totals = !t
    ? `<p class="totals" data-testid="totals" role="status"><span data-testid="files-changed">Working out what the files you chose need…</span></p>`
    : t.files === 0
      ? `<p class="totals" data-testid="totals"><span data-testid="files-changed">No file to restore</span></p>`
      : `<p class="totals" data-testid="totals"><span data-testid="files-changed">${plural(t.files, 'file', 'files')}</span> to restore, ` +
        `<span class="counts-pair"${countsAria(t.insertions, t.deletions)}><span class="ins" title="lines added since this message">${t.insertions}</span> <span class="del" title="lines removed since this message">${t.deletions}</span></span></p>`;
  const list = f.files.length
    ? `<p class="muted">Changes since this message, which the rewind undoes (tick the files to bring back, or open a file's hunks to tick some of them; click a file to see its diff):</p><ul class="file-list">${f.files.map((x, i) => renderFileRow(model, ui, x, i)).join('')}</ul>`
    : `<p class="muted">Every file is already as it was at this message.</p>`;
  const overwrite = userModified
    ? `<label class="checkbox"><input type="checkbox" id="overwrite-user-modified" data-action="toggle-overwrite"${ui.overwriteUserModified ? ' checked' : ''}${ui.busy ? ' disabled' : ''}> Also overwrite ${userModified === 1 ? 'the file' : `the ${userModified} files`} I changed by hand</label>`
    : '';
  const skipped = f.skipped.length
    ? `<details class="skipped" open><summary>${plural(f.skipped.length, 'file is', 'files are')} left alone by your settings</summary><ul>${f.skipped
        .map(
          (s) =>
            `<li data-testid="skipped-file" data-path="${escapeHtml(s.path)}"><code>${escapeHtml(displayPath(s.path))}</code> <span class="muted">— ${escapeWithCode(s.reason)}</span></li>`,
        )
        .join('')}</ul></details>`
    : '';
  const note = f.note
    ? `<p class="files-note" data-testid="files-note"><span class="codicon codicon-info" aria-hidden="true"></span> ${escapeWithCode(f.note)}</p>`
    : '';
  const recovery = f.recoveryFirst
    ? `<p class="files-note" data-testid="files-recovery"><span class="codicon codicon-history" aria-hidden="true"></span> ${escapeWithCode(f.recoveryFirst)}</p>`
    : '';
  return section('files', 'files', 'Files', `${recovery}${note}${totals}${overwrite}${list}${skipped}`, dimmed, dimmed ? 'not part of this rewind' : undefined);
}

function renderProblems(model: RewindPreviewModel, ui: PreviewUiState): string {
  const problems = problemsOf(model, ui);
  if (problems.length === 0) return '';
  const items = problems.map((p) => `<li data-part="${p.part}"><strong>${escapeHtml(p.headline)}</strong> ${escapeWithCode(p.detail)}</li>`).join('');
  return `<div class="problems" data-testid="preview-error" role="alert"><span class="codicon codicon-warning" aria-hidden="true"></span><ul>${items}</ul></div>`;
}

function renderModes(model: RewindPreviewModel, ui: PreviewUiState): string {
  const available = modeAvailability(model);
  const selected = effectiveMode(model, ui.mode);
  const options = modeOptionsFor(model)
    .map((o) => {
      const a = available[o.value];
      const id = `mode-${o.value}`;
      return (
        `<div class="mode${a.enabled ? '' : ' disabled'}"><input type="radio" name="mode" id="${id}" value="${o.value}"` +
        `${selected === o.value ? ' checked' : ''}${a.enabled && !ui.busy ? '' : ' disabled'} aria-describedby="${id}-desc">` +
        `<label for="${id}">${o.label}</label><span class="muted" id="${id}-desc">${escapeHtml(a.enabled ? o.description : (a.reason ?? ''))}</span></div>`
      );
    })
    .join('');
  return `<fieldset class="modes"><legend>What to rewind</legend>${options}</fieldset>`;
}

export function renderPreview(model: RewindPreviewModel, ui: PreviewUiState): string {
  const mode = effectiveMode(model, ui.mode);
  const confirm = confirmState(model, ui);
  return (
    `<header class="preview-head"><h1><span class="codicon codicon-history" aria-hidden="true"></span>Rewind to this message?` +
    `<button type="button" class="icon-button" data-action="refresh" aria-label="Compute the preview again" title="Compute the preview again (after files or the session changed)"${ui.busy ? ' disabled' : ''}><span class="codicon codicon-refresh" aria-hidden="true"></span></button></h1>` +
    `<blockquote class="anchor" data-entry-id="${escapeHtml(model.anchorEntryId)}">${escapeHtml(truncate(model.anchorPreview, 400))}</blockquote>` +
    `<p class="muted">This is a preview: nothing has changed yet.</p></header>` +
    renderProblems(model, ui) +
    renderModes(model, ui) +
    renderConversation(model, !touchesConversation(mode), ui.busy) +
    renderState(model, !touchesConversation(mode)) +
    renderFiles(model, ui, !touchesFiles(mode)) +
    `<footer class="buttons"><button type="button" class="primary-button" data-action="confirm"${confirm.enabled ? '' : ' disabled'}>` +
    `${ui.busy ? '<span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true"></span>' : ''}${escapeHtml(confirm.label)}</button>` +
    `<button type="button" class="secondary-button" data-action="cancel"${ui.busy ? ' disabled' : ''}>Cancel</button></footer>`
  );
}

export function renderLoading(): string {
  return `<p class="loading" role="status"><span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true"></span> Working out what a rewind to this message would change…</p>`;
}
