// Messages between WorkerFileCheckpointer (the extension host's thread) and files-worker (a worker thread that
// owns the FileCheckpointer). Only plain data crosses: structured clone turns a Buffer into a Uint8Array.
import type { FileCheckpointerOptions } from '../types';
import type { SyncResult } from '../scan/watcher-sync';

/** The FileCheckpointer methods the worker answers; anything else is refused. */
export const WORKER_METHODS = [
  'snapshot',
  'rewindFiles',
  'undoLastRewind',
  'readFileAtAnchor',
  'fileHunks',
  'listSnapshots',
  'undoStack',
  'diffSnapshots',
  'fileHistory',
  'blame',
  'timelinePoints',
  'importSnapshot',
  'adoptSnapshot',
  'dispose',
] as const;
export type WorkerMethod = (typeof WORKER_METHODS)[number];

export type ToWorker =
  | { type: 'init'; options: FileCheckpointerOptions }
  | { type: 'call'; id: number; method: WorkerMethod; args: unknown[] }
  | { type: 'notify'; paths: string[] }
  /** Whether the host's watcher has a sync barrier the worker should ask for before a tracked refresh. */
  | { type: 'sync'; on: boolean }
  | { type: 'settled'; id: number; result: SyncResult };

export type FromWorker =
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; message: string }
  /** The worker's tracker wants the host watcher's barrier: reply with 'settled' (after the paths it flushes). */
  | { type: 'settle'; id: number };
