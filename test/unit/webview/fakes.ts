// A fake of the services the panels use, a fake PanelUi, and generated sessions, for the webview tests and the
// screenshot harness. Every call is recorded so tests can assert on what the panels asked for.
import type { PanelUi } from '../../../src/extension/webviews/panel-ui';
import type {
  ApplyOptions,
  CompareRef,
  CompareServices,
  CompareSideRef,
  PreviewServices,
  SessionTarget,
  TranscriptServices,
} from '../../../src/extension/webviews/services';
import type {
  BranchCompareModel,
  EntryLocation,
  MessageKind,
  RewindMode,
  RewindOutcome,
  RewindPreviewModel,
  SelectionPreview,
  FileHunks,
  HunkSelection,
  TranscriptItem,
  TranscriptModel,
} from '../../../src/shared/view-models';

const KINDS: MessageKind[] = ['user', 'assistant', 'toolCall', 'toolResult', 'assistant', 'bash'];

/** A session of `n` rows cycling through the kinds; every 50th user message is a branch point. */
export function generateTranscript(n: number, branch = 'main'): { model: TranscriptModel; items: TranscriptItem[] } {
  const items: TranscriptItem[] = [];
  for (let i = 0; i < n; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const entryId = `e${i.toString(16).padStart(7, '0')}`;
    const item: TranscriptItem = {
      entryId,
      kind,
      markdown:
        kind === 'user'
          ? `Please change step ${i} of the plan.`
          : kind === 'assistant'
            ? `Done with **step ${i}**. See \`src/file${i}.ts\`:\n\n\`\`\`ts\nexport const step = ${i};\n\`\`\``
            : kind === 'toolCall'
              ? `\`\`\`json\n{ "path": "src/file${i}.ts" }\n\`\`\``
              : `line 1 of output ${i}\nline 2`,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    };
    if (kind === 'toolCall' || kind === 'toolResult') item.title = 'edit';
    if (kind === 'user') item.fileCheckpoint = { files: (i % 5) + 1 };
    if (kind === 'user' && i % 50 === 0 && i > 0)
      item.otherBranches = [
        { name: `alt-${i}`, headEntryId: `x${i}` },
        { name: `try-${i}`, headEntryId: `y${i}` },
      ];
    items.push(item);
  }
  return {
    model: {
      sessionId: 'session-1',
      title: 'Refactor the parser',
      source: 'agent-rewind',
      sourceLabel: 'agent-rewind',
      sourceIcon: 'comment-discussion',
      branch,
      total: n,
    },
    items,
  };
}

/** A dry run with everything: a new branch, state changes, an artifact, files (one changed by hand), a skipped one. */
export function samplePreview(overrides: Partial<RewindPreviewModel> = {}): RewindPreviewModel {
  return {
    sessionId: 'session-1',
    anchorEntryId: 'e0000006',
    anchorPreview: 'Please change step 6 of the plan.',
    conversation: {
      ok: true,
      currentBranch: 'main',
      newBranchName: 'main-rewind-1',
      messagesLeftOnOldBranch: [
        { entryId: 'e0000007', kind: 'assistant', preview: 'Done with step 7.' },
        { entryId: 'e0000008', kind: 'toolCall', preview: 'edit src/a.ts' },
        { entryId: 'e0000009', kind: 'toolResult', preview: 'ok' },
      ],
    },
    state: {
      ok: true,
      changes: [{ key: 'todo', scope: 'session', now: '["a","b"]', after: '["a"]' }],
      artifacts: [{ name: 'plan.md', currentVersion: 3, restoredVersion: 1 }],
    },
    files: {
      ok: true,
      // As the engine reports a dry run: the hand-changed README.md is listed but not counted (not overwritten).
      filesChanged: ['src/a.ts', 'src/new.ts'],
      insertions: 8,
      deletions: 2,
      files: [
        { path: 'src/a.ts', status: 'modified', insertions: 4, deletions: 2, binary: false, userModified: false },
        { path: 'src/new.ts', status: 'added', insertions: 4, deletions: 0, binary: false, userModified: false },
        { path: 'README.md', status: 'deleted', insertions: 0, deletions: 10, binary: false, userModified: true },
      ],
      skipped: [{ path: 'big.bin', reason: 'larger than the 10 MB limit' }],
    },
    ...overrides,
  };
}

/** Two branches of a session compared: where they part, three messages each, files that differ. */
export function sampleCompare(overrides: Partial<BranchCompareModel> = {}): BranchCompareModel {
  return {
    sessionId: 'session-1',
    sessionRef: '/sessions/s1.jsonl',
    title: 'Pick a database',
    divergence: { entryId: 'u2', kind: 'user', preview: 'What about many writers?' },
    a: {
      name: 'main',
      isActive: false,
      headEntryId: 'a3',
      messages: [
        { entryId: 'a2', kind: 'assistant', preview: 'Then pick PostgreSQL.' },
        { entryId: 'u3', kind: 'user', preview: 'Write the schema' },
        { entryId: 'a3', kind: 'assistant', preview: 'Wrote schema.sql.' },
      ],
      omitted: 0,
      snapshot: {
        anchorEntryId: 'u3',
        kind: 'user-message',
        preview: 'Write the schema',
        files: 3,
        createdAt: '2026-01-01T00:00:00.000Z',
        afterDivergence: true,
      },
    },
    b: {
      name: 'main-v2',
      isActive: true,
      headEntryId: 'b3',
      messages: [
        { entryId: 'b2', kind: 'assistant', preview: 'MySQL is another option.' },
        { entryId: 'u3b', kind: 'user', preview: 'Write the schema for MySQL' },
        { entryId: 'b3', kind: 'assistant', preview: 'Wrote schema.sql for MySQL.' },
      ],
      omitted: 0,
      snapshot: {
        anchorEntryId: 'u3b',
        kind: 'user-message',
        preview: 'Write the schema for MySQL',
        files: 3,
        createdAt: '2026-01-01T00:01:00.000Z',
        afterDivergence: true,
      },
    },
    files: {
      ok: true,
      files: [
        { path: 'db.txt', status: 'modified', insertions: 1, deletions: 1, binary: false },
        { path: 'replica.conf', status: 'added', insertions: 4, deletions: 0, binary: false },
        { path: 'pg.conf', status: 'deleted', insertions: 0, deletions: 2, binary: false },
      ],
      insertions: 5,
      deletions: 3,
      sameSnapshot: false,
    },
    ...overrides,
  };
}

export interface Call {
  method: string;
  args: unknown[];
}

export class FakeServices implements TranscriptServices, PreviewServices, CompareServices {
  readonly calls: Call[] = [];
  transcript = generateTranscript(30);
  previewModel: RewindPreviewModel = samplePreview();
  /** Set to make the next calls fail. */
  failLoad: Error | undefined;
  failApply: Error | undefined;
  failEditorChat: Error | undefined;
  outcome: RewindOutcome = {
    mode: 'all',
    branch: { name: 'main-rewind-1', headMessageId: 'e0000006' },
    filesChanged: ['src/a.ts', 'src/new.ts'],
    undoAvailable: true,
  };
  /** Where locateEntry says a message is, by id (anything else: not in the session). */
  locations = new Map<string, EntryLocation>();
  failLocate: Error | undefined;
  private listeners = new Set<() => void>();

  /** The active branch's transcript (`transcript`), or with opts.branch a branch of `branchTranscripts` shown. */
  async loadTranscript(ref: SessionTarget, opts: { branch?: string } = {}) {
    this.calls.push({ method: 'loadTranscript', args: [ref, ...(opts.branch !== undefined ? [opts] : [])] });
    if (this.failLoad) throw this.failLoad;
    const activeBranch = this.transcript.model.branch;
    const shown = (opts.branch !== undefined && opts.branch !== activeBranch && this.branchTranscripts.get(opts.branch)) || this.transcript;
    return { model: { ...shown.model, activeBranch }, items: [...shown.items] };
  }
  async locateEntry(ref: SessionTarget, entryId: string): Promise<EntryLocation> {
    this.calls.push({ method: 'locateEntry', args: [ref, entryId] });
    if (this.failLocate) throw this.failLocate;
    const onActive = this.transcript.items.find((i) => i.entryId === entryId);
    if (onActive)
      return {
        found: true,
        onActiveBranch: true,
        branch: this.transcript.model.branch,
        activeBranch: this.transcript.model.branch,
        preview: onActive.markdown,
      };
    return this.locations.get(entryId) ?? { found: false };
  }
  onDidChangeSession(ref: SessionTarget, listener: () => void) {
    this.calls.push({ method: 'onDidChangeSession', args: [ref] });
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }
  get listenerCount(): number {
    return this.listeners.size;
  }
  /** Simulates another process writing to the session file. */
  fireChange(): void {
    for (const l of this.listeners) l();
  }
  /** What the transcript becomes when switchBranch switches to a branch named here. */
  branchTranscripts = new Map<string, { model: TranscriptModel; items: TranscriptItem[] }>();
  async switchBranch(ref: SessionTarget, branchName: string) {
    this.calls.push({ method: 'switchBranch', args: [ref, branchName] });
    const next = this.branchTranscripts.get(branchName);
    if (next) this.transcript = next;
  }
  async previewRewind(ref: SessionTarget, entryId: string) {
    this.calls.push({ method: 'previewRewind', args: [ref, entryId] });
  }
  async fork(ref: SessionTarget, entryId: string) {
    this.calls.push({ method: 'fork', args: [ref, entryId] });
  }
  async label(ref: SessionTarget, entryId: string) {
    this.calls.push({ method: 'label', args: [ref, entryId] });
  }
  async compareBranches(ref: SessionTarget, branch: string | undefined) {
    this.calls.push({ method: 'compareBranches', args: [ref, branch] });
  }
  compareModel: BranchCompareModel = sampleCompare();
  failCompare: Error | undefined;
  failDiff: Error | undefined;
  async compare(ref: CompareRef): Promise<BranchCompareModel> {
    this.calls.push({ method: 'compare', args: [ref] });
    if (this.failCompare) throw this.failCompare;
    const m = this.compareModel;
    // as the engine answers: the sides in the order asked for (and A's session first)
    const swapped = ref.branchA === m.b.name && ref.branchB === m.a.name && (m.b.session?.sessionRef ?? m.sessionRef) === ref.sessionRef;
    return swapped ? { ...m, sessionRef: m.b.session?.sessionRef ?? m.sessionRef, a: m.b, b: m.a } : m;
  }
  async openBranchFileDiff(a: CompareSideRef, b: CompareSideRef, relPath: string) {
    this.calls.push({ method: 'openBranchFileDiff', args: [a, b, relPath] });
    if (this.failDiff) throw this.failDiff;
  }
  async openMessage(ref: SessionTarget, entryId: string) {
    this.calls.push({ method: 'openMessage', args: [ref, entryId] });
  }
  undoText: string | undefined = 'Undo will put the files back as they were before the rewind and return to branch "main" (branch "main-rewind-1" stays).';
  async closeFileDiffs(ref: SessionTarget, anchorEntryId: string) {
    this.calls.push({ method: 'closeFileDiffs', args: [ref, anchorEntryId] });
  }
  async describeUndo(ref: SessionTarget) {
    this.calls.push({ method: 'describeUndo', args: [ref] });
    return this.undoText;
  }
  async editorChat(ref: SessionTarget, anchorEntryId: string, action: 'open' | 'restoreCheckpoint') {
    this.calls.push({ method: 'editorChat', args: [ref, anchorEntryId, action] });
    if (this.failEditorChat) throw this.failEditorChat;
  }
  async preview(ref: SessionTarget, anchorEntryId: string) {
    this.calls.push({ method: 'preview', args: [ref, anchorEntryId] });
    return this.previewModel;
  }
  /** What previewSelection answers (by default: the ticked files of previewModel with their own counts). */
  selectionPreview: ((only: string[]) => SelectionPreview) | undefined;
  async previewSelection(ref: SessionTarget, anchorEntryId: string, only: string[], hunks?: HunkSelection[]): Promise<SelectionPreview> {
    this.calls.push({ method: 'previewSelection', args: [ref, anchorEntryId, only, ...(hunks ? [hunks] : [])] });
    if (this.selectionPreview) return this.selectionPreview(only);
    const files = this.previewModel.files.ok ? this.previewModel.files.files.filter((f) => only.includes(f.path)) : [];
    return {
      filesChanged: files.map((f) => f.path),
      insertions: files.reduce((a, f) => a + f.insertions, 0),
      deletions: files.reduce((a, f) => a + f.deletions, 0),
    };
  }
  /** What fileHunks answers, by path (anything else: whole file only). */
  hunksOf = new Map<string, FileHunks>();
  async fileHunks(ref: SessionTarget, anchorEntryId: string, relPath: string): Promise<FileHunks> {
    this.calls.push({ method: 'fileHunks', args: [ref, anchorEntryId, relPath] });
    return this.hunksOf.get(relPath) ?? { path: relPath, ok: false, reason: 'binary: whole file only' };
  }
  async apply(ref: SessionTarget, anchorEntryId: string, mode: RewindMode, options: ApplyOptions) {
    this.calls.push({ method: 'apply', args: [ref, anchorEntryId, mode, options] });
    if (this.failApply) throw this.failApply;
    // Files only leaves the conversation where it is: no new branch.
    return { ...this.outcome, mode, branch: mode === 'files' ? undefined : this.outcome.branch };
  }
  async openFileDiff(ref: SessionTarget, anchorEntryId: string, relPath: string) {
    this.calls.push({ method: 'openFileDiff', args: [ref, anchorEntryId, relPath] });
  }
  called(method: string): Call[] {
    return this.calls.filter((c) => c.method === method);
  }
}

export class FakeUi implements PanelUi {
  readonly calls: Call[] = [];
  /** The button the user "clicks" in the next information message. */
  infoChoice: string | undefined;
  async copyToClipboard(text: string) {
    this.calls.push({ method: 'copyToClipboard', args: [text] });
  }
  showError(message: string) {
    this.calls.push({ method: 'showError', args: [message] });
  }
  async showInfo(message: string, ...actions: string[]) {
    this.calls.push({ method: 'showInfo', args: [message, ...actions] });
    return this.infoChoice;
  }
  async withProgress<T>(title: string, task: () => Promise<T>) {
    this.calls.push({ method: 'withProgress', args: [title] });
    return task();
  }
  async executeCommand(command: string, ...args: unknown[]) {
    this.calls.push({ method: 'executeCommand', args: [command, ...args] });
    return undefined;
  }
  called(method: string): Call[] {
    return this.calls.filter((c) => c.method === method);
  }
}
