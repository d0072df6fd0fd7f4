// The one message protocol between the extension host and the webviews (Transcript, Rewind preview, Compare
// branches).
//
// Shape (after microsoft/vscode-hexeditor's idea of a small, explicit protocol):
// - every message has a `type`; each direction of each webview is a discriminated union;
// - the webview speaks first: it sends `ready` once its script runs, and the host sends nothing before that
//   (a webview that is hidden and shown again reloads, says `ready` again, and gets its data again);
// - a message that expects an answer carries a `requestId`; the host answers with one `response` carrying the
//   same id and a result whose type is fixed per request type (see *Results below);
// - the host trusts nothing it receives: every webview → host message goes through the zod schemas here, and a
//   message that does not match is ignored;
// - host → webview messages are declared once each (`notification<Fields>()`, ./ipc.ts): the union a webview
//   switches on and the guard that lets a posted object in both come from that declaration, so neither side casts.
//
// No Node, no `vscode` here. The webviews import only types from this file (`import type`), so zod stays out of
// their bundles; the declarations and the request/response machinery they run are in ./ipc.ts, ./to-webview.ts and
// ./request-client.ts.
import { z } from 'zod';
import { REWIND_MODES } from './view-models';

// ---------------------------------------------------------------------------------------------------------------
// Shared pieces

const requestId = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
/** Entry ids are short (8 hex chars in pi, uuids in ours); the bound keeps a bad webview from sending megabytes. */
const entryId = z.string().min(1).max(200);
const readyMessage = z.object({ type: z.literal('ready') }).strict();

/** The most files one selection (ticked files of the Rewind preview) may name. */
export const MAX_SELECTED_FILES = 100_000;

const selectedPath = z.string().min(1).max(4096);
/** Hunks of a file the user ticked (1-based), keyed to the hash of the bytes the preview showed them for. */
const hunkSelections = z
  .array(
    z
      .object({
        path: selectedPath,
        hunks: z.array(z.number().int().min(1).max(1_000_000)).min(1).max(100_000),
        hash: z.string().regex(/^[0-9a-f]{64}$/),
      })
      .strict(),
  )
  .max(MAX_SELECTED_FILES);

/** The most rows one `rows` request may ask for. */
export const MAX_ROWS_PER_REQUEST = 500;

export type { ResponseMessage, ResultMap } from './request-client';
export { REWIND_MODES };
export type { TranscriptToWebview, PreviewToWebview, CompareToWebview, RevealTarget } from './to-webview';
export type { TranscriptResults, PreviewResults, CompareResults } from './results';

// ---------------------------------------------------------------------------------------------------------------
// Transcript

export const transcriptToHostSchema = z.discriminatedUnion('type', [
  readyMessage,
  /** A page of rows of the current transcript version. */
  z
    .object({
      type: z.literal('rows'),
      requestId,
      version: z.number().int().nonnegative(),
      start: z.number().int().nonnegative(),
      count: z.number().int().min(1).max(MAX_ROWS_PER_REQUEST),
    })
    .strict(),
  z.object({ type: z.literal('rewindToHere'), entryId }).strict(),
  z.object({ type: z.literal('fork'), entryId }).strict(),
  z.object({ type: z.literal('label'), entryId }).strict(),
  z.object({ type: z.literal('copyId'), requestId, entryId }).strict(),
  /** Make a branch the active one (the conversation only: files are not changed). */
  z.object({ type: z.literal('switchBranch'), branch: z.string().min(1).max(500) }).strict(),
  /** Show a branch in this transcript without switching to it. */
  z.object({ type: z.literal('showBranch'), branch: z.string().min(1).max(500) }).strict(),
  /** Open Compare branches for this session (the branch shown is offered as one side). */
  z.object({ type: z.literal('compareBranches') }).strict(),
]);
export type TranscriptToHost = z.infer<typeof transcriptToHostSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Rewind preview

export const previewToHostSchema = z.discriminatedUnion('type', [
  readyMessage,
  /** Workspace-relative path of a file row the user clicked. */
  z.object({ type: z.literal('openFileDiff'), path: z.string().min(1).max(4096) }).strict(),
  z
    .object({
      type: z.literal('confirm'),
      requestId,
      mode: z.enum(REWIND_MODES),
      overwriteUserModified: z.boolean(),
      /** The ticked files (workspace-relative), when the user's ticks differ from what the rewind does by default. */
      only: z.array(selectedPath).max(MAX_SELECTED_FILES).optional(),
      /** Files of which only some hunks are ticked. */
      hunks: hunkSelections.optional(),
    })
    .strict(),
  /** The dry run of the files part for exactly the ticked files and hunks, so the preview says what Confirm will do. */
  z.object({ type: z.literal('previewSelection'), requestId, only: z.array(selectedPath).max(MAX_SELECTED_FILES), hunks: hunkSelections.optional() }).strict(),
  /** A listed file's changes as hunks to tick one by one (or why it can only be taken back whole). */
  z.object({ type: z.literal('fileHunks'), requestId, path: selectedPath }).strict(),
  z.object({ type: z.literal('cancel') }).strict(),
  /** Compute the dry run again (after the user fixed something, or the session moved on). */
  z.object({ type: z.literal('refresh') }).strict(),
  /** Run the editor's own command for the conversation (VS Code chat): show the session, or its Restore Checkpoint. */
  z.object({ type: z.literal('editorChat'), action: z.enum(['open', 'restoreCheckpoint']) }).strict(),
]);
export type PreviewToHost = z.infer<typeof previewToHostSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Compare branches

export const compareToHostSchema = z.discriminatedUnion('type', [
  readyMessage,
  /** Open VS Code's diff editor of a file the comparison lists: at A's snapshot ↔ at B's snapshot. */
  z.object({ type: z.literal('openFileDiff'), requestId, path: z.string().min(1).max(4096) }).strict(),
  /** Open the transcript at a message the comparison lists. */
  z.object({ type: z.literal('openMessage'), entryId }).strict(),
  /** Show B on the left and A on the right. */
  z.object({ type: z.literal('swap') }).strict(),
  /** Compute the comparison again. */
  z.object({ type: z.literal('refresh') }).strict(),
]);
export type CompareToHost = z.infer<typeof compareToHostSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Helpers used by both sides

/** Parses a message from a webview; `undefined` for anything malformed (the caller ignores it). */
export function parseMessage<S extends z.ZodTypeAny>(schema: S, raw: unknown): z.infer<S> | undefined {
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
