// The session store's public surface (docs/ARCHITECTURE.md, session files). Import from here rather than from the individual files.
export * from './types';
export {
  SessionManager,
  SessionPersistenceError,
  InvalidSessionFileError,
  type SessionManagerOptions,
  type CreateSessionOptions,
  type LoadReport,
} from './session-manager';
export { buildSessionContext, indexById, pathToLeaf, modelOf, firstKeptIdOf } from './context';
export { createCustomMessage, createBranchSummaryMessage, createCompactionSummaryMessage } from './messages';
export type { CustomAgentMessage, BranchSummaryAgentMessage, CompactionSummaryAgentMessage } from './messages';
export { FileSessionStorage, MemorySessionStorage, type SessionStorage, type SessionStorageWriter, type StorageStat } from './storage';
export { BlobStore, BLOB_REF_PREFIX, isBlobRef, blobRef } from './blob-store';
export { parseJsonlLenient, type SkippedLine, type ParsedJsonl } from './jsonl';
export { migrateSession } from './migrations';
export { encodeCwd, sessionDirFor, sessionFileName, sessionsRoot, blobsDir } from './paths';
export { MAX_PERSIST_CHARS, TRUNCATION_NOTICE, BLOB_EXTERNALIZE_THRESHOLD, prepareForPersist } from './persist-transform';
export { newEntryId, newSessionId } from './ids';
