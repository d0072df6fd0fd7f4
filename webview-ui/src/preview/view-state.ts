// What the Rewind preview lets the user do, derived from the dry-run model (pure; unit-tested in Node).
import type {
  FileChangePreview,
  FileHunk,
  FileHunks,
  FilesSelection,
  HunkSelection,
  RewindMode,
  RewindPreviewModel,
  SelectionPreview,
} from '../../../src/shared/view-models';

export interface ModeOption {
  value: RewindMode;
  label: string;
  description: string;
}

export const MODE_OPTIONS: readonly ModeOption[] = [
  { value: 'all', label: 'Conversation and files', description: 'Start a new branch here and put the files back as they were.' },
  { value: 'conversation', label: 'Conversation only', description: 'Start a new branch here; leave the files as they are now.' },
  { value: 'files', label: 'Files only', description: 'Put the files back as they were; stay on the current branch.' },
];

/** The modes as they read for the session at hand: another agent's session continues in a new session of its own
 *  (a fork) instead of a new branch in the same file. */
export function modeOptionsFor(model: RewindPreviewModel): readonly ModeOption[] {
  const fork = model.conversation.ok ? model.conversation.fork : undefined;
  if (!fork) return MODE_OPTIONS;
  const agent = fork.agent;
  return [
    {
      value: 'all',
      label: 'Conversation and files',
      description: `Continue in a new ${agent} session from just before this message, and put the files back as they were.`,
    },
    {
      value: 'conversation',
      label: 'Conversation only',
      description: `Continue in a new ${agent} session from just before this message; leave the files as they are now.`,
    },
    { value: 'files', label: 'Files only', description: `Put the files back as they were; the ${agent} session stays as it is.` },
  ];
}

/** What the user chose and what is going on, beside the model. */
export interface PreviewUiState {
  mode: RewindMode | null;
  overwriteUserModified: boolean;
  /** Confirm was clicked and the host is working. */
  busy: boolean;
  /** The host could not apply the rewind (its message, in words a person understands). */
  applyError?: string;
  /** Files the user ticked or unticked, by path (a file not here follows the default and the overwrite box). */
  picks?: Record<string, boolean>;
  /** The host's dry run for the ticked files (`only`) and hunks (`hunks`), once it answered; `error` when it could not. */
  selection?: FilesSelection & { result?: SelectionPreview; error?: string };
  /** Files whose hunks are shown (the row is expanded). */
  expanded?: Record<string, boolean>;
  /** A file's hunks as the host answered (or its error), once asked; 'loading' meanwhile. */
  hunks?: Record<string, FileHunks | { path: string; error: string } | 'loading'>;
  /** Hunks the user ticked within a file (1-based), by path; a file not here is whole or nothing, as its own tick says. */
  hunkPicks?: Record<string, number[]>;
}

export interface ModeAvailability {
  enabled: boolean;
  /** Why not, when disabled. */
  reason?: string;
}

export function modeAvailability(model: RewindPreviewModel): Record<RewindMode, ModeAvailability> {
  const conv = model.conversation.ok;
  const files = model.files.ok;
  const noConv = 'The conversation cannot be rewound to this message.';
  const noFiles = 'The files cannot be rewound to this message.';
  return {
    all: conv && files ? { enabled: true } : { enabled: false, reason: !conv ? noConv : noFiles },
    conversation: conv ? { enabled: true } : { enabled: false, reason: noConv },
    files: files ? { enabled: true } : { enabled: false, reason: noFiles },
  };
}

/** The mode to show selected: the user's choice while it is possible, else the first possible one (or none). */
export function effectiveMode(model: RewindPreviewModel, preferred: RewindMode | null): RewindMode | null {
  const available = modeAvailability(model);
  if (preferred && available[preferred].enabled) return preferred;
  return MODE_OPTIONS.find((o) => available[o.value].enabled)?.value ?? null;
}

export function touchesFiles(mode: RewindMode | null): boolean {
  return mode === 'all' || mode === 'files';
}

export function touchesConversation(mode: RewindMode | null): boolean {
  return mode === 'all' || mode === 'conversation';
}

/** What Confirm does to one listed file ('unticked': the user left it out; 'partial': only some of its hunks). */
export type FileFate = 'restore' | 'keep-user-change' | 'skip' | 'unticked' | 'partial';

/** A file's hunks, when the host listed them (it can be split). */
export function hunksOf(ui: PreviewUiState, path: string): (FileHunks & { ok: true }) | undefined {
  const h = ui.hunks?.[path];
  return typeof h === 'object' && 'ok' in h && h.ok ? h : undefined;
}

/** The hunks of a file the user ticked one by one (sorted), or undefined when they follow the file's own tick. */
function pickedHunks(ui: PreviewUiState, path: string): { picked: number[]; of: FileHunk[]; hash: string } | undefined {
  const listed = hunksOf(ui, path);
  const picked = ui.hunkPicks?.[path];
  if (!listed || !picked) return undefined;
  return { picked: [...picked].sort((a, b) => a - b), of: listed.hunks, hash: listed.hash };
}

/** Which hunks of a file Confirm takes back (1-based), for its hunk ticks. */
export function tickedHunks(model: RewindPreviewModel, ui: PreviewUiState, file: FileChangePreview): number[] {
  const p = pickedHunks(ui, file.path);
  if (p) return p.picked;
  const listed = hunksOf(ui, file.path);
  return listed && fileFate(model, ui, file) === 'restore' ? listed.hunks.map((h) => h.index) : [];
}

/** Lines of the hunks of a file Confirm takes back, when it takes back only some (the row's counts). */
export function partialCounts(ui: PreviewUiState, file: FileChangePreview): { insertions: number; deletions: number; hunks: number[]; of: number } | undefined {
  const p = pickedHunks(ui, file.path);
  if (!p || p.picked.length === 0 || p.picked.length === p.of.length) return undefined;
  const chosen = p.of.filter((h) => p.picked.includes(h.index));
  return {
    insertions: chosen.reduce((a, h) => a + h.insertions, 0),
    deletions: chosen.reduce((a, h) => a + h.deletions, 0),
    hunks: p.picked,
    of: p.of.length,
  };
}

/**
 * The dry run was computed without overwriting hand-made changes: its filesChanged are the files it restores
 * then. Ticking the box adds the hand-changed files; anything else listed but not in filesChanged is skipped.
 */
export function fileFate(model: RewindPreviewModel, ui: PreviewUiState, file: FileChangePreview): FileFate {
  const hunks = pickedHunks(ui, file.path);
  if (hunks) {
    // every hunk is the whole file; none is the file left out
    if (hunks.picked.length === hunks.of.length) return 'restore';
    if (hunks.picked.length > 0) return 'partial';
    const fate = defaultFate(model, ui, file);
    return fate === 'restore' ? 'unticked' : fate;
  }
  const picked = ui.picks?.[file.path];
  if (picked === true) return 'restore';
  const fate = defaultFate(model, ui, file);
  return picked === false && fate === 'restore' ? 'unticked' : fate;
}

/** What Confirm does to a file nobody ticked or unticked. */
function defaultFate(model: RewindPreviewModel, ui: PreviewUiState, file: FileChangePreview): FileFate {
  if (!model.files.ok) return 'skip';
  if (model.files.filesChanged.includes(file.path)) return 'restore';
  if (file.userModified) return ui.overwriteUserModified ? 'restore' : 'keep-user-change';
  return 'skip';
}

/** Files the rewind would leave alone because the user changed them by hand and did not tick the box. */
export function keptUserFiles(model: RewindPreviewModel, ui: PreviewUiState): string[] {
  if (!model.files.ok) return [];
  return model.files.files.filter((f) => fileFate(model, ui, f) === 'keep-user-change').map((f) => f.path);
}

/**
 * The files to bring back when the ticks differ from what the rewind does by default (the overwrite box included),
 * else undefined: then Confirm asks for the default rewind, which the model describes.
 */
export function selectedOnly(model: RewindPreviewModel, ui: PreviewUiState): string[] | undefined {
  return selectionOf(model, ui)?.only;
}

/**
 * What Confirm asks for when the ticks differ from what the rewind does by default: the whole files ticked (`only`)
 * and the files of which only some hunks are (`hunks`, keyed to the bytes the hunks were shown for); else undefined.
 */
export function selectionOf(model: RewindPreviewModel, ui: PreviewUiState): FilesSelection | undefined {
  if (!model.files.ok) return undefined;
  const differs = model.files.files.some((f) => fileFate(model, ui, f) !== defaultFate(model, ui, f));
  if (!differs) return undefined;
  const only = model.files.files.filter((f) => fileFate(model, ui, f) === 'restore').map((f) => f.path);
  const hunks: (HunkSelection & { hash: string })[] = model.files.files
    .filter((f) => fileFate(model, ui, f) === 'partial')
    .map((f) => {
      const p = pickedHunks(ui, f.path)!;
      return { path: f.path, hunks: p.picked, hash: p.hash };
    });
  return hunks.length ? { only, hunks } : { only };
}

/** Whether two selections ask for the same (their answers are interchangeable). */
export function sameSelection(a: FilesSelection, b: FilesSelection): boolean {
  return JSON.stringify([a.only, a.hunks ?? []]) === JSON.stringify([b.only, b.hunks ?? []]);
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The host's dry run of the current selection, or why there is none to show yet (asked, or it failed). */
export function selectionState(
  model: RewindPreviewModel,
  ui: PreviewUiState,
): { result: SelectionPreview } | { pending: true } | { error: string } | undefined {
  const chosen = selectionOf(model, ui);
  if (!chosen) return undefined;
  const s = ui.selection;
  if (!s || !sameSelection(s, chosen)) return { pending: true };
  if (s.error !== undefined) return { error: s.error };
  return s.result ? { result: s.result } : { pending: true };
}

/** Totals of what Confirm would really change: the dry run of the ticked files when the user chose some, else the
 *  default's given the box (the model's own totals when it is not ticked); undefined while the host works it out. */
export function fileTotals(model: RewindPreviewModel, ui: PreviewUiState): { files: number; insertions: number; deletions: number } | undefined {
  if (!model.files.ok) return { files: 0, insertions: 0, deletions: 0 };
  const selection = selectionState(model, ui);
  if (selection) return 'result' in selection ? { ...selection.result, files: selection.result.filesChanged.length } : undefined;
  const { filesChanged, insertions, deletions } = model.files;
  const extra = model.files.files.filter((f) => !filesChanged.includes(f.path) && fileFate(model, ui, f) === 'restore');
  return {
    files: filesChanged.length + extra.length,
    insertions: insertions + extra.reduce((a, f) => a + f.insertions, 0),
    deletions: deletions + extra.reduce((a, f) => a + f.deletions, 0),
  };
}

export function confirmState(model: RewindPreviewModel, ui: PreviewUiState): { enabled: boolean; label: string } {
  const mode = effectiveMode(model, ui.mode);
  if (ui.busy) return { enabled: false, label: 'Rewinding…' };
  if (!mode) return { enabled: false, label: 'Rewind' };
  if (mode === 'conversation') return { enabled: true, label: 'Rewind conversation' };
  const selection = selectionState(model, ui);
  if (selection && 'error' in selection) return { enabled: false, label: 'Rewind' };
  const totals = fileTotals(model, ui);
  if (!totals) return { enabled: false, label: 'Working out the files you chose…' };
  const files = totals.files;
  // No file to write is said as such: "Rewind 0 files" reads as a rewind that does nothing, or as a fault.
  if (files === 0) {
    if (mode !== 'all') return { enabled: false, label: 'No file to rewind' };
    return { enabled: true, label: selection ? 'Rewind conversation (no file chosen)' : 'Rewind conversation (files already match)' };
  }
  const what = `${files} ${files === 1 ? 'file' : 'files'}`;
  return { enabled: true, label: mode === 'all' ? `Rewind conversation and ${what}` : `Rewind ${what}` };
}

export interface PreviewProblem {
  part: 'conversation' | 'state' | 'files' | 'apply';
  headline: string;
  detail: string;
}

/** Every problem, worded for a person; the parts that work are still shown in full. */
export function problemsOf(model: RewindPreviewModel, ui: PreviewUiState): PreviewProblem[] {
  const out: PreviewProblem[] = [];
  // a conversation its editor rewinds (VS Code chat) is not a problem: its part says what that editor does
  if (!model.conversation.ok && !model.editorChat)
    out.push({ part: 'conversation', headline: 'The conversation can’t be rewound to this message.', detail: model.conversation.error });
  // A problem with the message itself fails the conversation and the state alike: say it once.
  if (!model.state.ok && (model.conversation.ok || model.conversation.error !== model.state.error))
    out.push({ part: 'state', headline: 'What happens to session state and artifacts can’t be shown.', detail: model.state.error });
  if (!model.files.ok) out.push({ part: 'files', headline: 'The files can’t be rewound to this message.', detail: model.files.error });
  const selection = selectionState(model, ui);
  if (selection && 'error' in selection) out.push({ part: 'files', headline: 'The files you chose can’t be previewed.', detail: selection.error });
  if (ui.applyError) out.push({ part: 'apply', headline: 'The rewind did not happen.', detail: ui.applyError });
  return out;
}
