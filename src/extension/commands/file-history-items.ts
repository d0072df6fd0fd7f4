// "File History Across Agents" (issue 27, item 4) without `vscode`: a file's history (the engine's, any agent's
// prompts and the user's hand edits, newest first) as quick-pick rows, and each change's file before and after it.
// The history carries each change as a unified diff; the versions are rebuilt from the file as it is now by undoing
// those diffs newest first, so the diff editor shows whole files without the engine handing out every version.
import { applyPatch, parsePatch, reversePatch } from 'diff';
import type { NamedHistory, NamedOwner } from '../../core/engine';
import type { FileChangePreview } from '../../shared/view-models';

type Entry = NamedHistory['entries'][number];

/** What the picker says about a prompt: its agent's name, its session's title, its text (when the message was read). */
export interface PromptInfo {
  agent: string;
  title: string;
  text?: string;
}

/** The message a change's prompt is: what "Open the prompt" opens and "Restore this file to before it" rewinds to. */
export interface PromptTarget {
  sessionRef: string;
  entryId: string;
}

export interface FileHistoryItem {
  label: string;
  description: string;
  detail: string;
  /** Index of the change in the history's entries. */
  index: number;
  /** Set for a change made by one session's prompt whose user message was found. */
  prompt?: PromptTarget;
}

export const promptKey = (t: PromptTarget): string => `${t.sessionRef}\u0000${t.entryId}`;

/** The user message behind a change, when one session's prompt made it and its message id is known. */
export function promptOf(owner: NamedOwner): PromptTarget | undefined {
  if (owner.by !== 'turn' || !owner.sessionRef || !owner.messageId) return undefined;
  return { sessionRef: owner.sessionRef, entryId: owner.messageId };
}

const MINUTE = 60_000;

/** "just now", "5 min ago", "3 h ago", "2 days ago", else the date; "since the last snapshot" for a change not yet snapshotted. */
export function whenText(at: string, now: Date): string {
  if (at === 'now') return 'since the last snapshot';
  const t = Date.parse(at);
  if (Number.isNaN(t)) return at;
  const ago = now.getTime() - t;
  if (ago < MINUTE) return 'just now';
  if (ago < 60 * MINUTE) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < 24 * 60 * MINUTE) return `${Math.floor(ago / (60 * MINUTE))} h ago`;
  const days = Math.floor(ago / (24 * 60 * MINUTE));
  return days < 30 ? `${days} ${days === 1 ? 'day' : 'days'} ago` : new Date(t).toISOString().slice(0, 10);
}

function changeText(e: Entry): string {
  const what = e.status === 'renamed' ? `renamed from ${e.from ?? '?'}` : e.status;
  return `${what}, ${e.binary ? 'binary' : `+${e.insertions} −${e.deletions}`}`;
}

function ownerLabel(o: NamedOwner, info: PromptInfo | undefined): string {
  if (o.by === 'user') return '$(account) You (outside any agent turn)';
  if (o.by === 'several') return `$(organization) Several sessions at once (${o.sessions.map((s) => s.slice(0, 8)).join(', ')})`;
  if (info) return `$(hubot) ${info.agent} · ${info.title}`;
  return `$(hubot) ${o.agent ?? 'Agent'} · session ${o.sessionId.slice(0, 8)}`;
}

function promptLine(o: NamedOwner, info: PromptInfo | undefined): string {
  if (o.by !== 'turn') return '';
  if (info?.text) return `“${info.text}”`;
  return `prompt ${o.messageId ?? o.prompt}`;
}

/** The picker's rows, newest first (the history's order). `infoOf` names a prompt (undefined: not found). */
export function fileHistoryItems(h: NamedHistory, infoOf: (t: PromptTarget) => PromptInfo | undefined, now: Date): FileHistoryItem[] {
  return h.entries.map((e, index) => {
    const prompt = promptOf(e.owner);
    const info = prompt && infoOf(prompt);
    const line = promptLine(e.owner, info);
    return {
      label: ownerLabel(e.owner, info),
      description: whenText(e.at, now),
      detail: line ? `${line} — ${changeText(e)}` : changeText(e),
      index,
      ...(prompt ? { prompt } : {}),
    };
  });
}

/** The file before and after one change (null: no file there). */
export interface ChangeVersions {
  before: string | null;
  after: string | null;
}

/**
 * Each change's before and after, from the file as it is now (null: absent), by undoing the changes' diffs newest
 * first. A change with no usable diff (a binary file, a diff cut for size, one that does not apply) gets undefined,
 * and so does every older one: what is shown is never a guess.
 */
export function changeVersions(entries: readonly Entry[], nowText: string | null): (ChangeVersions | undefined)[] {
  const out: (ChangeVersions | undefined)[] = [];
  let after: string | null | undefined = nowText;
  for (const e of entries) {
    if (after === undefined || e.binary || e.diff === '') {
      after = undefined;
      out.push(undefined);
      continue;
    }
    const [patch] = parsePatch(e.diff);
    const undone: string | false = patch ? applyPatch(after ?? '', reversePatch(patch)) : false;
    if (undone === false) {
      after = undefined;
      out.push(undefined);
      continue;
    }
    const before: string | null = e.status === 'added' ? null : undone;
    out.push({ before, after: e.status === 'deleted' ? null : after });
    after = before;
  }
  return out;
}

/**
 * What "Restore this file to before it" rewinds (`only`): the file, and the name it had at that change when a rename
 * (`mv`) at or after it moved it, so the content comes back under that name instead of only vanishing from the new one.
 */
export function restorePaths(h: NamedHistory, index: number): string[] {
  const names = new Set([h.path]);
  for (const e of h.entries.slice(0, index + 1)) {
    names.add(e.path);
    if (e.from) names.add(e.from);
  }
  return [...names];
}

/** The dry run's changes for the confirmation, one line per file: what the restore will do to it. */
export function restoreText(files: readonly Pick<FileChangePreview, 'path' | 'status' | 'insertions' | 'deletions' | 'binary'>[]): string {
  return files
    .map((f) =>
      f.status === 'added'
        ? `${f.path} did not exist then: it will be deleted.`
        : f.status === 'deleted'
          ? `${f.path} will be brought back.`
          : `${f.path} will be rewritten (${f.binary ? 'a binary file' : `${f.deletions} ${f.deletions === 1 ? 'line' : 'lines'} brought back, ${f.insertions} removed`}).`,
    )
    .join('\n');
}
