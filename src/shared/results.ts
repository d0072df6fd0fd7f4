// The result each webview request gets back, one type per webview (request type -> its result): their own file, so
// the host's schemas (./protocol.ts) and the webviews' message declarations (./to-webview.ts) share them without
// importing each other.
import type { FileHunks, SelectionPreview, TranscriptItem } from './view-models';

export type TranscriptResults = {
  rows: { version: number; start: number; items: TranscriptItem[] };
  copyId: { copied: string };
};

export type PreviewResults = {
  /** `summary` is what the host also shows in its notification, e.g. "Rewound 3 files and the conversation". */
  confirm: { summary: string };
  /** What a rewind of exactly the ticked files restores (the files it writes and their line counts). */
  previewSelection: SelectionPreview;
  fileHunks: FileHunks;
};

export type CompareResults = {
  /** The path whose diff editor was opened. */
  openFileDiff: { opened: string };
};
