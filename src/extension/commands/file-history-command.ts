// "Agent Rewind: File History Across Agents" (issue 27, item 4): from the explorer, the editor's title or the palette
// (the active editor's file), the prompts of any agent that changed the file, newest first; a chosen change opens its
// diff (the whole file before and after it, read-only), its prompt in the transcript, or restores this one file to
// before it: a files rewind with `only` that says first what it will do and is undone like any rewind.
import * as vscode from 'vscode';
import type { NamedHistory, RewindEngine } from '../../core/engine';
import { withoutCodeMarks } from '../../shared/plain-text';
import { snapshotUri } from '../snapshot-documents';
import { sourceLabel } from '../tree/format';
import {
  changeVersions,
  fileHistoryItems,
  promptKey,
  restorePaths,
  restoreText,
  type FileHistoryItem,
  type PromptInfo,
  type PromptTarget,
} from './file-history-items';

const OPEN_DIFF = 'Open the diff';
const OPEN_PROMPT = 'Open the prompt';
const RESTORE = 'Restore this file to before it';
const UNDO = 'Undo';

/** The file the command acts on: the explorer's or editor title's uri, else the active editor's file. */
export function fileOfArgument(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg.scheme === 'file' ? arg : undefined;
  const active = vscode.window.activeTextEditor?.document.uri;
  return active?.scheme === 'file' ? active : undefined;
}

/** Each prompt's agent, session title and text, as far as its session can be read (a failure only leaves it unnamed). */
async function promptInfos(engine: RewindEngine, h: NamedHistory): Promise<Map<string, PromptInfo>> {
  const targets = new Map<string, PromptTarget>();
  for (const e of h.entries) {
    if (e.owner.by === 'turn' && e.owner.sessionRef && e.owner.messageId) {
      const t = { sessionRef: e.owner.sessionRef, entryId: e.owner.messageId };
      targets.set(promptKey(t), t);
    }
  }
  const infos = new Map<string, PromptInfo>();
  if (targets.size === 0) return infos;
  const listings = new Map((await engine.listSessions().catch(() => [])).map((l) => [l.sessionRef, l]));
  for (const [key, t] of targets) {
    const listing = listings.get(t.sessionRef);
    if (!listing) continue;
    // by id, not from the active branch's messages: a prompt a rewind has since left behind is named too
    const text = (await engine.namedPrompt(t.sessionRef, t.entryId).catch(() => undefined))?.text;
    infos.set(key, { agent: sourceLabel(listing.source), title: listing.title, ...(text ? { text } : {}) });
  }
  return infos;
}

/** `changed` tells the views a session's files were rewound (they refresh). */
export async function showFileHistory(engine: RewindEngine, arg: unknown, changed: (sessionRef: string) => void): Promise<void> {
  const uri = fileOfArgument(arg);
  if (!uri) {
    void vscode.window.showInformationMessage('Agent Rewind: open a file of the workspace (or pick one in the explorer) to see its history.');
    return;
  }
  const { h, items } = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Agent Rewind: reading the file’s history…' },
    async () => {
      const history = await engine.fileHistory(uri.fsPath);
      const infos = await promptInfos(engine, history);
      return { h: history, items: fileHistoryItems(history, (t) => infos.get(promptKey(t)), new Date()) };
    },
  );
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`Agent Rewind: no snapshot shows ${h.path} changing yet.`);
    return;
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: `History of ${h.path} across agents`,
    placeHolder: 'Newest first: choose a change',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) return;
  const actions = [OPEN_DIFF, ...(picked.prompt ? [OPEN_PROMPT, RESTORE] : [])];
  const action = await vscode.window.showQuickPick(actions, { title: `${picked.label.replace(/^\$\([^)]*\)\s*/, '')} — ${picked.description}` });
  if (action === OPEN_DIFF) return openChangeDiff(uri, h, picked);
  if (action === OPEN_PROMPT && picked.prompt) {
    await vscode.commands.executeCommand('agentRewind.openTranscript', picked.prompt);
    return;
  }
  if (action === RESTORE && picked.prompt) return restoreBefore(engine, h, picked.index, picked.prompt, picked.detail, changed);
}

async function openChangeDiff(uri: vscode.Uri, h: NamedHistory & { root: string }, item: FileHistoryItem): Promise<void> {
  const entry = h.entries[item.index]!;
  const now = await vscode.workspace.fs.readFile(uri).then(
    (b) => Buffer.from(b).toString('utf8'),
    () => null,
  );
  if (!changeVersions(h.entries, now)[item.index]) {
    // a binary file, or a diff too large to keep: the change as the history holds it, not a rebuilt guess
    if (entry.binary || entry.diff === '') throw new Error(`${entry.path} is a binary file: its change has no text diff.`);
    const doc = await vscode.workspace.openTextDocument({ content: entry.diff, language: 'diff' });
    await vscode.window.showTextDocument(doc, { preview: true });
    return;
  }
  const side = (s: 'before' | 'after') => snapshotUri(entry.path, { history: { file: uri.fsPath, entry: item.index, side: s } }, s);
  const who = item.label.replace(/^\$\([^)]*\)\s*/, '');
  await vscode.commands.executeCommand('vscode.diff', side('before'), side('after'), `${entry.path} (${who}, ${item.description})`, { preview: true });
}

async function restoreBefore(
  engine: RewindEngine,
  h: NamedHistory,
  index: number,
  prompt: PromptTarget,
  promptText: string,
  changed: (sessionRef: string) => void,
): Promise<void> {
  const only = restorePaths(h, index);
  const dry = await engine.rewindFiles(prompt.sessionRef, prompt.entryId, { only, dryRun: true });
  if (!dry.canRewind) throw new Error(dry.error ?? 'this file cannot be restored to that prompt.');
  if (dry.filesChanged.length === 0) {
    void vscode.window.showInformationMessage(`Agent Rewind: ${h.path} is already as it was before that prompt.`);
    return;
  }
  const what = restoreText(dry.files.filter((f) => dry.filesChanged.includes(f.path)));
  const answer = await vscode.window.showWarningMessage(
    `Restore ${h.path} to as it was before this prompt?`,
    { modal: true, detail: `${withoutCodeMarks(promptText)}\n\n${what}\nNothing else changes. You can undo it.` },
    'Restore',
  );
  if (answer !== 'Restore') return;
  const done = await engine.rewindFiles(prompt.sessionRef, prompt.entryId, { only });
  changed(prompt.sessionRef);
  const undo = await engine.describeUndo(prompt.sessionRef).catch(() => undefined);
  const choice = await vscode.window.showInformationMessage(
    `Agent Rewind: restored ${done.filesChanged.length === 1 ? h.path : `${done.filesChanged.length} files`} to before that prompt.${undo ? ` ${undo}` : ''}`,
    UNDO,
  );
  if (choice === UNDO) await vscode.commands.executeCommand('agentRewind.undoLastRewind', { sessionRef: prompt.sessionRef });
}
