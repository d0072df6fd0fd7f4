// Quick picks for commands run from the palette without a target: which session, branch, message or checkpoint.
// Each returns undefined when the user dismisses it.
import * as vscode from 'vscode';
import type { RewindEngine } from '../../core/engine';
import { formatAge, plural, sourceLabel } from '../tree/format';
import type { ComparePicker, PickRow } from './compare-target';

export async function pickSession(engine: RewindEngine, preferred?: string): Promise<string | undefined> {
  const sessions = await engine.listSessions();
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage('Agent Rewind: this workspace has no agent sessions yet.');
    return undefined;
  }
  if (sessions.length === 1) return sessions[0]!.sessionRef;
  const now = Date.now();
  const items = sessions.map((s) => ({
    label: s.title,
    // The title a person recognises, with its agent and age; never the session file's path.
    description: `${sourceLabel(s.source)} · ${formatAge(s.modifiedMs, now)}${s.sessionRef === preferred ? ' · current' : ''}`,
    file: s.sessionRef,
  }));
  const picked = await vscode.window.showQuickPick(items, { title: 'Agent Rewind: choose a session', matchOnDescription: true });
  return picked?.file;
}

export async function pickBranch(engine: RewindEngine, sessionRef: string): Promise<string | undefined> {
  const details = await engine.describeSession(sessionRef);
  const items = details.branches.map((b) => ({
    label: `${b.isActive ? '$(pass-filled)' : '$(git-branch)'} ${b.name}`,
    description: `${b.isActive ? 'active · ' : ''}${plural(b.messageCount, 'message')}`,
    detail: b.headPreview,
    name: b.name,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: `Switch branch of "${details.listing.title}"`,
    placeHolder: 'The branch to continue on (nothing is deleted)',
    matchOnDetail: true,
  });
  return picked?.name;
}

/** Compare's questions (compare-target.ts) as quick picks: a row without a value is a separator. */
export const comparePicker: ComparePicker = {
  async pick<T>(rows: PickRow<T>[], opts: { title: string; placeHolder: string }): Promise<T | undefined> {
    const items = rows.map((r) =>
      r.value === undefined
        ? { label: r.label, kind: vscode.QuickPickItemKind.Separator }
        : { label: r.label, ...(r.description ? { description: r.description } : {}), ...(r.detail ? { detail: r.detail } : {}), row: r },
    );
    const picked = await vscode.window.showQuickPick(items, {
      title: opts.title,
      placeHolder: opts.placeHolder,
      matchOnDescription: true,
      matchOnDetail: true,
    });
    return picked && 'row' in picked ? picked.row.value : undefined;
  },
  inform(message) {
    void vscode.window.showInformationMessage(message);
  },
};

export async function pickUserMessage(engine: RewindEngine, sessionRef: string, title: string): Promise<string | undefined> {
  const messages = await engine.userMessages(sessionRef);
  if (messages.length === 0) {
    void vscode.window.showInformationMessage('Agent Rewind: the active branch has no user messages yet.');
    return undefined;
  }
  const now = Date.now();
  const items = [...messages].reverse().map((m) => ({
    label: m.preview || '(empty message)',
    description: formatAge(Date.parse(m.timestamp), now),
    detail: m.entryId,
    id: m.entryId,
  }));
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: 'Newest first', matchOnDetail: true });
  return picked?.id;
}

export type PickedCheckpoint = { kind: 'named'; name: string; entryId: string } | { kind: 'file'; anchorEntryId: string };

export async function pickCheckpoint(
  engine: RewindEngine,
  sessionRef: string,
  opts: { title: string; namedOnly?: boolean },
): Promise<PickedCheckpoint | undefined> {
  const details = await engine.describeSession(sessionRef);
  type Item = vscode.QuickPickItem & { value?: PickedCheckpoint };
  const items: Item[] = details.namedCheckpoints.map((c) => ({
    label: `$(bookmark) ${c.name}`,
    description: c.preview,
    value: { kind: 'named', name: c.name, entryId: c.entryId },
  }));
  if (!opts.namedOnly && details.fileCheckpoints.length) {
    items.push({ label: 'File snapshots', kind: vscode.QuickPickItemKind.Separator });
    for (const c of [...details.fileCheckpoints].reverse()) {
      items.push({
        label: `$(file-symlink-directory) ${c.preview}`,
        description: plural(c.files, 'file'),
        value: { kind: 'file', anchorEntryId: c.anchorEntryId },
      });
    }
  }
  if (!items.some((i) => i.value)) {
    void vscode.window.showInformationMessage(`Agent Rewind: "${details.listing.title}" has no ${opts.namedOnly ? 'named ' : ''}checkpoints yet.`);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title: opts.title });
  return picked?.value;
}

/** Asks for a checkpoint or label name; trims it and refuses an empty one. */
export function askName(prompt: string, value = '', placeHolder?: string): Thenable<string | undefined> {
  return vscode.window
    .showInputBox({
      prompt,
      value,
      ...(placeHolder ? { placeHolder } : {}),
      validateInput: (v) => (v.trim() ? undefined : 'A name cannot be empty'),
    })
    .then((v) => v?.trim());
}
