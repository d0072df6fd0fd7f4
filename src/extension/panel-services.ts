// The services the Transcript and Rewind preview panels call (webviews/services.ts), over the engine facade.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { RewindEngine } from '../core/engine';
import { absPath } from '../core/files';
import type { BranchCompareModel, EntryLocation, RewindMode, RewindOutcome, RewindPreviewModel, TranscriptItem, TranscriptModel } from '../shared/view-models';
import type { SessionEvents } from './session-events';
import { SNAPSHOT_SCHEME, snapshotUri } from './snapshot-documents';
import type { CompareRef, CompareServices, CompareSideRef, PreviewServices, SessionRef, TranscriptServices } from './webviews/services';

export interface PanelOpeners {
  showPreview(ref: SessionRef, anchorEntryId: string): void;
}

export class PanelServices implements TranscriptServices, PreviewServices, CompareServices {
  constructor(
    private readonly engine: RewindEngine,
    private readonly events: SessionEvents,
    private readonly openers: PanelOpeners,
  ) {}

  loadTranscript(ref: SessionRef, opts: { branch?: string } = {}): Promise<{ model: TranscriptModel; items: TranscriptItem[] }> {
    return this.engine.loadTranscript(ref.sessionFile, opts);
  }

  locateEntry(ref: SessionRef, entryId: string): Promise<EntryLocation> {
    return this.engine.locateEntry(ref.sessionFile, entryId);
  }

  onDidChangeSession(ref: SessionRef, listener: () => void): vscode.Disposable {
    return this.events.onDidChangeFile(ref.sessionFile, listener);
  }

  async switchBranch(ref: SessionRef, branchName: string): Promise<void> {
    await this.engine.switchBranch(ref.sessionFile, branchName);
    this.events.fire([ref.sessionFile]);
  }

  async previewRewind(ref: SessionRef, entryId: string): Promise<void> {
    this.openers.showPreview(ref, entryId);
  }

  async fork(ref: SessionRef, entryId: string): Promise<void> {
    await vscode.commands.executeCommand('agentRewind.forkFromMessage', { sessionFile: ref.sessionFile, entryId });
  }

  async label(ref: SessionRef, entryId: string): Promise<void> {
    await vscode.commands.executeCommand('agentRewind.labelMessage', { sessionFile: ref.sessionFile, entryId });
  }

  preview(ref: SessionRef, anchorEntryId: string): Promise<RewindPreviewModel> {
    return this.engine.previewRewind(ref.sessionFile, anchorEntryId);
  }

  async apply(ref: SessionRef, anchorEntryId: string, mode: RewindMode, options: { overwriteUserModified: boolean }): Promise<RewindOutcome> {
    try {
      return await this.engine.applyRewind(ref.sessionFile, anchorEntryId, mode, options);
    } finally {
      this.events.fire([ref.sessionFile]);
    }
  }

  /** The file at the anchor (left) against the file now (right), both read-only: the diff only shows what the rewind
   *  would undo, and an editable right side offered revert arrows that changed the real file on a stray click. A side
   *  where the file does not exist is empty. */
  async openFileDiff(ref: SessionRef, anchorEntryId: string, relPath: string): Promise<void> {
    const root = await this.engine.workspaceRootOf(ref.sessionFile);
    if (!root) throw new Error("This session's folder is not open in this window, so its files cannot be compared here.");
    // Refuses '..', absolute paths and .git before anything is read.
    const nowPath = absPath(root, relPath);
    const existedThen = (await this.engine.fileAtAnchor(ref.sessionFile, anchorEntryId, relPath)) !== undefined;
    const left = snapshotUri(relPath, { sessionFile: ref.sessionFile, anchorEntryId, ...(existedThen ? {} : { empty: true }) }, 'then');
    const right = snapshotUri(relPath, { sessionFile: ref.sessionFile, anchorEntryId, ...(existsSync(nowPath) ? { now: true } : { empty: true }) }, 'now');
    const name = relPath.split('/').pop() ?? relPath;
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (at the message ↔ now, read-only)`, { preview: true });
  }

  async closeFileDiffs(ref: SessionRef, anchorEntryId: string): Promise<void> {
    const ours = (uri: vscode.Uri) => {
      if (uri.scheme !== SNAPSHOT_SCHEME) return false;
      try {
        const q = JSON.parse(uri.query) as { sessionFile?: unknown; anchorEntryId?: unknown };
        return q.sessionFile === ref.sessionFile && q.anchorEntryId === anchorEntryId;
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

  describeUndo(ref: SessionRef): Promise<string | undefined> {
    return this.engine.describeUndo(ref.sessionFile);
  }

  async compareBranches(ref: SessionRef, branch: string | undefined): Promise<void> {
    await vscode.commands.executeCommand('agentRewind.compareBranches', { sessionFile: ref.sessionFile, ...(branch ? { branch } : {}) });
  }

  compare(ref: CompareRef): Promise<BranchCompareModel> {
    return this.engine.compareBranches(ref.sessionFile, ref.branchA, ref.branchB, ref.sessionFileB === undefined ? {} : { sessionFileB: ref.sessionFileB });
  }

  /** The file at A's snapshot (left) against the file at B's (right), both read-only; a side without it is empty. The
   *  two sides may be of two sessions (a session and its fork). */
  async openBranchFileDiff(a: CompareSideRef, b: CompareSideRef, relPath: string): Promise<void> {
    // Refuses '..' and absolute paths before anything is read (the snapshot store is never reached through them).
    if (relPath.startsWith('/') || relPath.split('/').some((p) => p === '..' || p === '')) throw new Error(`Not a workspace-relative path: ${relPath}`);
    const side = async (s: CompareSideRef) => {
      const exists = (await this.engine.fileAtAnchor(s.sessionFile, s.anchorEntryId, relPath)) !== undefined;
      return snapshotUri(relPath, { sessionFile: s.sessionFile, anchorEntryId: s.anchorEntryId, ...(exists ? {} : { empty: true }) }, s.branch);
    };
    const [left, right] = await Promise.all([side(a), side(b)]);
    const name = relPath.split('/').pop() ?? relPath;
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (${a.branch} ↔ ${b.branch})`, { preview: true });
  }

  async openMessage(ref: SessionRef, entryId: string): Promise<void> {
    await vscode.commands.executeCommand('agentRewind.openTranscript', { sessionFile: ref.sessionFile, entryId });
  }
}
