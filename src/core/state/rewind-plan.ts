// What a state rewind (docs/ARCHITECTURE.md, state and artifacts) writes, computed without writing: the state delta that takes every key of every
// scope back to its value before the invocation, and the artifact delta that restores each changed artifact's last
// earlier version as a new version (or removes artifacts that did not exist yet).
import { isDeepStrictEqual } from 'node:util';
import type { Warn } from '../branches/records';
import type { SessionEntry } from '../session/types';
import type { ArtifactChangePreview, StateChangePreview } from '../../shared/view-models';
import { artifactVersions, foldState, nextArtifactVersion, type FoldedState } from './fold';
import { invocationStart, isUserMessage } from './invocations';
import { scopeOf, type RestoredArtifact, type StateDelta } from './records';

export class StateRewindError extends Error {}

export interface StateRewindPlan {
  invocationId: string;
  /** The rewind record goes under the entry just before the invocation's first entry (null: a new root), so the
   *  rewound invocations leave the path (and the context) without being deleted. */
  attachTo: string | null;
  stateDelta: StateDelta;
  artifactDelta: Record<string, RestoredArtifact | null>;
  now: FoldedState;
  before: FoldedState;
}

export function planStateRewind(entries: readonly SessionEntry[], path: readonly SessionEntry[], invocationId: string, warn: Warn): StateRewindPlan {
  const anchor = entries.find((e) => e.id === invocationId);
  if (!anchor) throw new StateRewindError(`Invocation "${invocationId}" not found`);
  if (!isUserMessage(anchor)) throw new StateRewindError(`Entry "${invocationId}" is not a user message, so it does not start an invocation`);
  const start = invocationStart(path, invocationId);
  if (start < 0) throw new StateRewindError(`Invocation "${invocationId}" is not on the active branch`);

  const now = foldState(path, warn);
  const before = foldState(path.slice(0, start), warn);

  const stateDelta: StateDelta = {};
  for (const [key, value] of now.state) {
    if (!before.state.has(key)) stateDelta[key] = null;
    else if (!isDeepStrictEqual(before.state.get(key), value)) stateDelta[key] = before.state.get(key)!;
  }
  // Keys deleted at or after the invocation come back too.
  for (const [key, value] of before.state) if (!now.state.has(key)) stateDelta[key] = value;

  const versions = artifactVersions(entries, warn);
  const artifactDelta: Record<string, RestoredArtifact | null> = {};
  for (const [name, current] of now.artifacts) {
    const old = before.artifacts.get(name);
    if (!old) artifactDelta[name] = null;
    else if (old.version !== current.version) artifactDelta[name] = restoreAsNewVersion(versions, name, old);
  }
  for (const [name, old] of before.artifacts) {
    if (!now.artifacts.has(name)) artifactDelta[name] = restoreAsNewVersion(versions, name, old);
  }

  return { invocationId, attachTo: start === 0 ? null : path[start - 1]!.id, stateDelta, artifactDelta, now, before };
}

function restoreAsNewVersion(
  versions: ReturnType<typeof artifactVersions>,
  name: string,
  old: { version: number; blob: string; mimeType: string; size: number },
): RestoredArtifact {
  return { version: nextArtifactVersion(versions, name), blob: old.blob, mimeType: old.mimeType, size: old.size, restoredFrom: old.version };
}

export interface StateRewindPreview {
  changes: StateChangePreview[];
  artifacts: ArtifactChangePreview[];
}

/** The view models the rewind confirmation shows (src/shared/view-models.ts). */
export function previewOf(plan: StateRewindPlan): StateRewindPreview {
  const text = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
  const changes = Object.entries(plan.stateDelta)
    .map(([key, after]) => ({ key, scope: scopeOf(key), now: text(plan.now.state.get(key)), after: after === null ? null : text(after) }))
    .sort((a, b) => a.key.localeCompare(b.key));
  const artifacts = Object.entries(plan.artifactDelta)
    .map(([name, restored]) => ({
      name,
      currentVersion: plan.now.artifacts.get(name)?.version ?? null,
      restoredVersion: restored ? restored.restoredFrom : null,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { changes, artifacts };
}
