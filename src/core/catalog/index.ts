// The session catalog's public surface (a rebuildable sql.js index; see catalog.ts). Import from here.
export {
  Catalog,
  type CatalogOptions,
  type CatalogFolder,
  type CatalogRef,
  type CatalogScope,
  type CatalogSession,
  type RefreshResult,
  type SearchHit,
  type SearchOptions,
} from './catalog';
export { catalogPath, CATALOG_FILE_NAME, type CatalogRebuildReason } from './catalog-file';
export { CATALOG_SCHEMA_VERSION } from './schema';
export { toFtsQuery, type FtsQuery } from './fts-query';
export { MAX_INDEXED_CHARS, type IndexedBranch, type IndexedCheckpoint, type IndexedMessage, type IndexedSession, type SessionVersion } from './session-reader';
export { loadSqlJs, defaultWasmPath } from '../sqljs-loader';
