// File checkpoints (docs/ARCHITECTURE.md, file checkpoints): the public surface of src/core/files.
export { FileCheckpointer, defaultStoreDir } from './file-checkpointer';
export { watchWorkspace, type WatchHandlers } from './scan/fs-watcher';
export { WATCH_LIMIT_FIX, type WatchLimitReport } from './scan/watch-limit';
export { PathSafetyError, absPath } from './safe-paths';
export { StoreCorruptError } from './store/object-format';
export type { SnapshotRecord } from './snapshot-records';
export type * from './types';
export { anchorCheckFor, type SessionEntryLookup } from './anchor-check';
export { ChangeFeed, COOKIE_PREFIX, type ChangeFeedOptions, type SyncResult, type WatcherSync } from './scan/watcher-sync';
export { WorkerFileCheckpointer, type StartFilesWorker } from './workers/worker-checkpointer';
export { setBackgroundCompactor } from './store/compaction-handoff';
export { resolveWorkspaceRoot } from './workspace-root';
