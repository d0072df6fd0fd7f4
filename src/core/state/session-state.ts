// Session state and artifacts (docs/ARCHITECTURE.md, state and artifacts) over one session file: read by folding records along the active path,
// written as records in session transactions, rewound with one `agent-rewind/rewind` record.
import { toBranchInfo, type BranchInfo } from '../branches/derive';
import { EntryIndex } from '../branches/entry-index';
import { newBranchMove, placeUnder, snapshotOf } from '../branches/moves';
import { onceWarn, type Warn } from '../branches/records';
import type { SessionLike } from '../branches/session-like';
import type { BlobStore } from '../session/blob-store';
import { artifactVersions, foldState, nextArtifactVersion, type ArtifactVersion } from './fold';
import { invocationAt } from './invocations';
import {
  ARTIFACT_RECORD,
  REWIND_RECORD,
  STATE_RECORD,
  stateDeltaSchema,
  type JsonValue,
  type RestoredArtifact,
  type RewindRecord,
  type StateDelta,
} from './records';
import { planStateRewind, previewOf, type StateRewindPreview } from './rewind-plan';

export type ArtifactBlobs = Pick<BlobStore, 'put' | 'get'>;

export interface SessionStateOptions {
  /** Where artifact bytes go: the session store's content-addressed BlobStore (<home>/blobs). */
  blobs: ArtifactBlobs;
  warn?: Warn;
  now?: () => number;
}

export interface StateSnapshot {
  /** The entry the state is read at, and its invocation (the nearest user message at or before it). */
  entryId: string | null;
  invocationId: string | null;
  state: Record<string, JsonValue>;
  artifacts: ArtifactVersion[];
}

export interface RewindRequest {
  sessionId: string;
  rewindBeforeInvocationId: string;
}

export interface StateRewindResult {
  /** The rewind record's entry id. */
  entryId: string;
  /** The rewind starts a new active branch whose head is the message before the invocation. */
  branch: BranchInfo;
  stateDelta: StateDelta;
  artifactDelta: Record<string, RestoredArtifact | null>;
}

export class SessionState<S extends SessionLike = SessionLike> {
  readonly #blobs: ArtifactBlobs;
  readonly #warn: Warn;
  readonly #now: () => number;

  constructor(
    readonly session: S,
    opts: SessionStateOptions,
  ) {
    this.#blobs = opts.blobs;
    this.#warn = opts.warn ?? onceWarn();
    this.#now = opts.now ?? Date.now;
  }

  /** State and artifacts as of an entry (default: the leaf of the active branch), after reading others' appends. */
  async stateAt(entryId?: string | null): Promise<StateSnapshot> {
    await this.session.syncFromDisk();
    return this.snapshotAt(entryId);
  }

  /** Same as stateAt, from what this process has already read. */
  snapshotAt(entryId: string | null = this.session.getLeafId()): StateSnapshot {
    if (entryId !== null && !this.session.getEntry(entryId)) throw new Error(`Entry "${entryId}" not found`);
    const path = new EntryIndex(this.session.getEntries()).pathTo(entryId);
    const folded = foldState(path, this.#warn);
    return {
      entryId,
      invocationId: invocationAt(path, path.length - 1),
      state: Object.fromEntries(folded.state),
      artifacts: [...folded.artifacts.values()].sort((a, b) => a.name.localeCompare(b.name)),
    };
  }

  getState(entryId?: string | null): Record<string, JsonValue> {
    return this.snapshotAt(entryId).state;
  }

  /** Every version of every artifact (or of one) in the file, across branches. */
  artifactHistory(name?: string): ArtifactVersion[] {
    const all = artifactVersions(this.session.getEntries(), this.#warn);
    if (name !== undefined) return all.get(name) ?? [];
    return [...all.values()].flat();
  }

  /** Records a state delta on the active branch (null deletes a key); returns the record's entry id. */
  async updateState(delta: StateDelta): Promise<string> {
    const parsed = stateDeltaSchema.safeParse(delta);
    if (!parsed.success) throw new Error(`Invalid state delta: ${parsed.error.issues[0]?.message ?? 'not a JSON object'}`);
    return this.session.transaction(() => this.session.appendCustomEntry(STATE_RECORD, { invocationId: this.#currentInvocation(), stateDelta: parsed.data }));
  }

  /** Stores the bytes in the blob store and records them as the next version of `name` (versions are global per
   *  name within the session file, so they never repeat across branches). */
  async saveArtifact(name: string, bytes: Uint8Array, mimeType = 'application/octet-stream'): Promise<ArtifactVersion> {
    if (!name || /[\u0000-\u001f]/.test(name)) throw new Error(`Invalid artifact name ${JSON.stringify(name)}`);
    const hash = await this.#blobs.put(Buffer.from(bytes));
    const blob = `blob:sha256:${hash}`;
    return this.session.transaction(() => {
      const version = nextArtifactVersion(artifactVersions(this.session.getEntries(), this.#warn), name);
      const record = { name, version, blob, mimeType, size: bytes.byteLength, invocationId: this.#currentInvocation() };
      const entryId = this.session.appendCustomEntry(ARTIFACT_RECORD, record);
      return { name, version, blob, mimeType, size: bytes.byteLength, entryId };
    });
  }

  /** An artifact's bytes: a given version, or the one current on the active branch. undefined when there is none. */
  async loadArtifact(name: string, version?: number): Promise<{ version: ArtifactVersion; bytes: Buffer } | undefined> {
    await this.session.syncFromDisk();
    const found =
      version === undefined ? this.snapshotAt().artifacts.find((a) => a.name === name) : this.artifactHistory(name).find((a) => a.version === version);
    if (!found) return undefined;
    const bytes = await this.#blobs.get(found.blob.slice('blob:sha256:'.length));
    if (!bytes) throw new Error(`Artifact "${name}" version ${found.version}: its bytes (${found.blob}) are missing from the blob store`);
    return { version: found, bytes };
  }

  /** What rewind({ rewindBeforeInvocationId: beforeEntryId }) would change, without writing anything. */
  previewStateRewind(beforeEntryId: string): StateRewindPreview {
    const entries = this.session.getEntries();
    const path = new EntryIndex(entries).pathTo(this.session.getLeafId());
    return previewOf(planStateRewind(entries, path, beforeEntryId, this.#warn));
  }

  /**
   * The state rewind (docs/API.md, SessionState): one record carrying the state delta and the artifact delta, placed as a child of the entry
   * just before the invocation's first entry. Context built from it leaves out the invocation and everything after;
   * nothing is deleted, and the rewound entries stay on the previous branch.
   */
  async rewind(request: RewindRequest): Promise<StateRewindResult> {
    if (request.sessionId !== this.session.sessionId) {
      throw new Error(`Session "${request.sessionId}" is not this session (${this.session.sessionId})`);
    }
    return this.session.transaction(() => {
      const entries = this.session.getEntries();
      const path = new EntryIndex(entries).pathTo(this.session.getLeafId());
      const plan = planStateRewind(entries, path, request.rewindBeforeInvocationId, this.#warn);
      const branch = newBranchMove(this.session, snapshotOf(this.session, this.#warn), plan.attachTo, this.#now());
      const record: RewindRecord = {
        rewindBeforeInvocationId: plan.invocationId,
        stateDelta: plan.stateDelta,
        artifactDelta: plan.artifactDelta,
        branch,
      };
      const entryId = placeUnder(this.session, plan.attachTo, REWIND_RECORD, record);
      return { entryId, branch: toBranchInfo(snapshotOf(this.session, this.#warn).active), stateDelta: plan.stateDelta, artifactDelta: plan.artifactDelta };
    });
  }

  #currentInvocation(): string | null {
    const path = new EntryIndex(this.session.getEntries()).pathTo(this.session.getLeafId());
    return invocationAt(path, path.length - 1);
  }
}
