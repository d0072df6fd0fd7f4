// State and artifacts as of an entry: fold the records on the path root → entry, in order.
import { isCustomEntry, readRecord, type Warn } from '../branches/records';
import type { SessionEntry } from '../session/types';
import { ARTIFACT_RECORD, artifactRecordSchema, REWIND_RECORD, rewindRecordSchema, STATE_RECORD, stateRecordSchema, type JsonValue } from './records';

export interface ArtifactVersion {
  name: string;
  version: number;
  blob: string;
  mimeType: string;
  size: number;
  /** The entry that recorded this version. */
  entryId: string;
  /** Set when a rewind saved an older version's bytes as this version. */
  restoredFrom?: number;
}

export interface FoldedState {
  state: Map<string, JsonValue>;
  artifacts: Map<string, ArtifactVersion>;
}

export function foldState(path: readonly SessionEntry[], warn: Warn): FoldedState {
  const state = new Map<string, JsonValue>();
  const artifacts = new Map<string, ArtifactVersion>();
  const applyDelta = (delta: Record<string, JsonValue>) => {
    for (const [key, value] of Object.entries(delta)) {
      if (value === null) state.delete(key);
      else state.set(key, value);
    }
  };
  for (const entry of path) {
    if (!isCustomEntry(entry)) continue;
    if (entry.customType === STATE_RECORD) {
      const record = readRecord(entry, stateRecordSchema, warn);
      if (record) applyDelta(record.stateDelta);
    } else if (entry.customType === ARTIFACT_RECORD) {
      const record = readRecord(entry, artifactRecordSchema, warn);
      if (record)
        artifacts.set(record.name, {
          name: record.name,
          version: record.version,
          blob: record.blob,
          mimeType: record.mimeType,
          size: record.size,
          entryId: entry.id,
        });
    } else if (entry.customType === REWIND_RECORD) {
      const record = readRecord(entry, rewindRecordSchema, warn);
      if (!record) continue;
      applyDelta(record.stateDelta);
      for (const [name, restored] of Object.entries(record.artifactDelta)) {
        if (restored === null) artifacts.delete(name);
        else artifacts.set(name, { name, ...restored, entryId: entry.id });
      }
    }
  }
  return { state, artifacts };
}

/** Every version of every artifact anywhere in the file (all branches): version numbers are global per name. */
export function artifactVersions(entries: readonly SessionEntry[], warn: Warn): Map<string, ArtifactVersion[]> {
  const all = new Map<string, ArtifactVersion[]>();
  const add = (v: ArtifactVersion) => {
    const list = all.get(v.name) ?? [];
    list.push(v);
    all.set(v.name, list);
  };
  for (const entry of entries) {
    if (isCustomEntry(entry, ARTIFACT_RECORD)) {
      const r = readRecord(entry, artifactRecordSchema, warn);
      if (r) add({ name: r.name, version: r.version, blob: r.blob, mimeType: r.mimeType, size: r.size, entryId: entry.id });
    } else if (isCustomEntry(entry, REWIND_RECORD)) {
      const r = readRecord(entry, rewindRecordSchema, warn);
      if (!r) continue;
      for (const [name, restored] of Object.entries(r.artifactDelta)) if (restored) add({ name, ...restored, entryId: entry.id });
    }
  }
  for (const list of all.values()) list.sort((a, b) => a.version - b.version);
  return all;
}

export function nextArtifactVersion(versions: Map<string, ArtifactVersion[]>, name: string): number {
  const list = versions.get(name);
  return list && list.length > 0 ? list[list.length - 1]!.version + 1 : 1;
}
