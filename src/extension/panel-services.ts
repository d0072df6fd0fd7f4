// The services the Transcript and Rewind preview panels call (webviews/services.ts), over the engine facade.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { RewindEngine } from '../core/engine';
import { absPath } from '../core/files';
import type {
  BranchCompareModel,
  EntryLocation,
  RewindMode,
  RewindOutcome,
  RewindPreviewModel,
  SelectionPreview,
  FileHunks,
  HunkSelection,
  TranscriptItem,
  TranscriptModel,
} from '../shared/view-models';
import { runVsCodeChatAction } from './editor-chat-commands';
import type { SessionEvents } from './session-events';
import { SNAPSHOT_SCHEME, snapshotUri } from './snapshot-documents';
import type { ApplyOptions, CompareRef, CompareServices, CompareSideRef, PreviewServices, SessionTarget, TranscriptServices } from './webviews/services';

export interface PanelOpeners {
  showPreview(ref: SessionTarget, anchorEntryId: string): void;
}

export class PanelServices implements TranscriptServices, PreviewServices, CompareServices {
  constructor(
    private readonly engine: RewindEngine,
    private readonly events: SessionEvents,
    private readonly openers: PanelOpeners,
  ) {}

  loadTranscript(ref: SessionTarget, opts: { branch?: string } = {}): Promise<{ model: TranscriptModel; items: TranscriptItem[] }> {
    return this.engine.loadTranscript(ref.sessionRef, opts);
  }

  locateEntry(ref: SessionTarget, entryId: string): Promise<EntryLocation> {
    return this.engine.locateEntry(ref.sessionRef, entryId);
  }

  onDidChangeSession(ref: SessionTarget, listener: () => void): vscode.Disposable {
    return this.events.onDidChangeFile(ref.sessionRef, listener);
  }

  async switchBranch(ref: SessionTarget, branchName: string): Promise<void> {
    await this.engine.switchBranch(ref.sessionRef, branchName);
    this.events.fire([ref.sessionRef]);
  }

  async previewRewind(ref: SessionTarget, entryId: string): Promise<void> {
    this.openers.showPreview(ref, entryId);
  }

  async fork(ref: SessionTarget, entryId: string): Promise<void> {
    await vscode.commands.executeCommand('agentRewind.forkFromMessage', { sessionRef: ref.sessionRef, entryId });
  }

  async label(ref: SessionTarget, entryId: string): Promise<void> {
    await vscode.commands.executeCommand('agentRewind.labelMessage', { sessionRef: ref.sessionRef, entryId });
  }

  preview(ref: SessionTarget, anchorEntryId: string): Promise<RewindPreviewModel> {
    return this.engine.previewRewind(ref.sessionRef, anchorEntryId);
  }

  async editorChat(ref: SessionTarget, anchorEntryId: string, action: 'open' | 'restoreCheckpoint'): Promise<void> {
    const target = await this.engine.editorChatTarget(ref.sessionRef, anchorEntryId);
    if (!target) throw new Error('this message is not a request of a VS Code chat session');
    await runVsCodeChatAction(action, target);
  }

  async previewSelection(ref: SessionTarget, anchorEntryId: string, only: string[], hunks?: HunkSelection[]): Promise<SelectionPreview> {
    const r = await this.engine.rewindFiles(ref.sessionRef, anchorEntryId, { dryRun: true, only, ...(hunks ? { hunks } : {}) });
    if (!r.canRewind) throw new Error(r.error ?? 'The files cannot be rewound to this message.');
    return { filesChanged: r.filesChanged, insertions: r.insertions, deletions: r.deletions };
  }

  async fileHunks(ref: SessionTarget, anchorEntryId: string, relPath: string): Promise<FileHunks> {
    const [hunks] = await this.engine.fileHunks(ref.sessionRef, anchorEntryId, [relPath]);
    return hunks!;
  }

  async apply(ref: SessionTarget, anchorEntryId: string, mode: RewindMode, options: ApplyOptions): Promise<RewindOutcome> {
    try {
      return await this.engine.applyRewind(ref.sessionRef, anchorEntryId, mode, options);
    } finally {
      this.events.fire([ref.sessionRef]);
    }
  }

  /** The file at the anchor (left) against the file now (right), both read-only: the diff only shows what the rewind
   *  would undo, and an editable right side offered revert arrows that changed the real file on a stray click. A side
   *  where the file does not exist is empty. */
  async openFileDiff(ref: SessionTarget, anchorEntryId: string, relPath: string): Promise<void> {
    const root = await this.engine.workspaceRootOf(ref.sessionRef);
    if (!root) throw new Error("This session's folder is not open in this window, so its files cannot be compared here.");
    // Refuses '..', absolute paths and .git before anything is read.
    const nowPath = absPath(root, relPath);
    const existedThen = (await this.engine.fileAtAnchor(ref.sessionRef, anchorEntryId, relPath)) !== undefined;
    const left = snapshotUri(relPath, { sessionRef: ref.sessionRef, anchorEntryId, ...(existedThen ? {} : { empty: true }) }, 'then');
    const right = snapshotUri(relPath, { sessionRef: ref.sessionRef, anchorEntryId, ...(existsSync(nowPath) ? { now: true } : { empty: true }) }, 'now');
    const name = relPath.split('/').pop() ?? relPath;
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (at the message ↔ now, read-only)`, { preview: true });
  }

  async closeFileDiffs(ref: SessionTarget, anchorEntryId: string): Promise<void> {
    const ours = (uri: vscode.Uri) => {
      if (uri.scheme !== SNAPSHOT_SCHEME) return false;
      try {
        const q = JSON.parse(uri.query) as { sessionRef?: unknown; anchorEntryId?: unknown };
        return q.sessionRef === ref.sessionRef && q.anchorEntryId === anchorEntryId;
      } catch {
        return false;
      }
    };
    // The diffs openFileDiff opened: the left side is this message's snapshot. Compare-branches diffs (both sides
    // snapshots) never change, so they stay.
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && ours(t.input.original) && t.input.modified.fragment === 'now');
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
  }

  describeUndo(ref: SessionTarget): Promise<string | undefined> {
    return this.engine.describeUndo(ref.sessionRef);
  }

  async compareBranches(ref: SessionTarget, branch: string | undefined): Promise<void> {
    await vscode.commands.executeCommand('agentRewind.compareBranches', { sessionRef: ref.sessionRef, ...(branch ? { branch } : {}) });
  }

  compare(ref: CompareRef): Promise<BranchCompareModel> {
    return this.engine.compareBranches(ref.sessionRef, ref.branchA, ref.branchB, ref.sessionRefB === undefined ? {} : { sessionRefB: ref.sessionRefB });
  }

  /** The file at A's snapshot (left) against the file at B's (right), both read-only; a side without it is empty. The
   *  two sides may be of two sessions (a session and its fork). */
  async openBranchFileDiff(a: CompareSideRef, b: CompareSideRef, relPath: string): Promise<void> {
    // Refuses '..' and absolute paths before anything is read (the snapshot store is never reached through them).
    if (relPath.startsWith('/') || relPath.split('/').some((p) => p === '..' || p === '')) throw new Error(`Not a workspace-relative path: ${relPath}`);
    const side = async (s: CompareSideRef) => {
      const exists = (await this.engine.fileAtAnchor(s.sessionRef, s.anchorEntryId, relPath)) !== undefined;
      return snapshotUri(relPath, { sessionRef: s.sessionRef, anchorEntryId: s.anchorEntryId, ...(exists ? {} : { empty: true }) }, s.branch);
    };
    const [left, right] = await Promise.all([side(a), side(b)]);
    const name = relPath.split('/').pop() ?? relPath;
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (${a.branch} ↔ ${b.branch})`, { preview: true });
  }

  async openMessage(ref: SessionTarget, entryId: string): Promise<void> {
    await vscode.commands.executeCommand('agentRewind.openTranscript', { sessionRef: ref.sessionRef, entryId });
  }
}
