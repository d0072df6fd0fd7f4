// What the host sends each webview (src/shared/protocol.ts describes the whole protocol): one declaration per
// message, from which the webview's union and its guard are derived (./ipc.ts). No zod here: the webviews import it.
import { notification, type IpcMessage } from './ipc';
import type { ResponseFields } from './request-client';
import type { BranchCompareModel, RewindPreviewModel, TranscriptModel } from './view-models';
import type { CompareResults, PreviewResults, TranscriptResults } from './results';

/** Where the message to reveal is, seen from the transcript's active branch. */
export type RevealTarget =
  /** Row `index` of the transcript (scroll there and highlight it). */
  | { on: 'activeBranch'; index: number }
  /** Not on the active branch: say so, and offer to switch to `branch` (which holds it). */
  | { on: 'otherBranch'; branch: string; activeBranch: string; preview: string }
  /** In the session but on no branch (orphaned by a hand edit): say so; there is nothing to switch to. */
  | { on: 'noBranch'; preview: string };

export const transcriptToWebview = {
  /** A (new) version of the transcript: the webview drops rows of older versions and asks again. `sessionRef`
   * goes into the webview's saved state, so a panel serializer can restore the panel after a window reload. */
  model: notification<{ version: number; model: TranscriptModel; sessionRef: string }>(),
  /** The transcript could not be loaded at all (missing or unreadable session file). */
  loadError: notification<{ message: string }>(),
  /** Something the user asked for did not work (e.g. the branch vanished): shown, then dismissed. */
  notice: notification<{ message: string; severity: 'info' | 'error' }>(),
  /** Show one message (a search hit, a checkpoint's message). Sent only after `ready` and after the `model` whose
   * `version` it refers to, so a reveal asked for while the panel was still opening arrives once it can be shown. */
  revealEntry: notification<{ entryId: string; version: number; target: RevealTarget }>(),
  response: notification<ResponseFields<TranscriptResults[keyof TranscriptResults]>>(),
};
export type TranscriptToWebview = IpcMessage<typeof transcriptToWebview>;

export const previewToWebview = {
  loading: notification(),
  model: notification<{ model: RewindPreviewModel }>(),
  response: notification<ResponseFields<PreviewResults[keyof PreviewResults]>>(),
};
export type PreviewToWebview = IpcMessage<typeof previewToWebview>;

export const compareToWebview = {
  loading: notification<{ branchA: string; branchB: string }>(),
  model: notification<{ model: BranchCompareModel }>(),
  /** The comparison could not be made at all (a branch vanished, the session file is unreadable). */
  loadError: notification<{ message: string }>(),
  response: notification<ResponseFields<CompareResults[keyof CompareResults]>>(),
};
export type CompareToWebview = IpcMessage<typeof compareToWebview>;
