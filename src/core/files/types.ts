// Public shapes of the file-checkpoint engine (docs/ARCHITECTURE.md, file checkpoints). Paths are workspace-relative and '/'-separated.
import type { FileAttribution, FileChangePreview, FileDifference, FileHunk, FileHunks, HunkSelection } from '../../shared/view-models';
export type { FileAttribution, FileHunk, FileHunks, HunkSelection };
import type { SnapshotRecord } from './snapshot-records';
import type { TimelinePoint } from './timeline';
import type { WatcherSync } from './scan/watcher-sync';

export type SnapshotKind = 'user-message' | 'turn-end' | 'pre-restore';

export interface FileCheckpointerOptions {
  /** The folder whose files are snapshotted and restored. Nothing outside it is ever written. */
  workspaceRoot: string;
  /** The agent-rewind home; the store defaults to <home>/checkpoints/<workspace key>. */
  home: string;
  /** Overrides where the object store and snapshot records live. */
  storeDir?: string;
  /** Files larger than this are skipped (and reported). Default 50 MiB. */
  maxFileSize?: number;
  /** picomatch globs (workspace-relative); when given, only matching files are snapshotted. */
  include?: string[];
  /** picomatch globs (workspace-relative) never snapshotted, on top of .gitignore files. */
  exclude?: string[];
  /** When the store grows beyond this, the oldest snapshots are dropped and gc runs. Default 5 GiB. */
  sizeCapBytes?: number;
  /** How often the in-process tracker re-checks the whole tree even without watcher events. Default 5 min. */
  fullCheckIntervalMs?: number;
  /** How a scan hashes; see ScanTuning. Composed in one place (core/settings/settings.ts). */
  tuning?: Partial<ScanTuning>;
  /** The process ends after this operation (a CLI command, a hook's fresh process): the big packs' indexes read when
   *  the store opens stay in memory, where a long-lived checkpointer leaves them on disk (ObjectStore.open). */
  shortLived?: boolean;
  /** This process's current folder is its own and nothing else runs while it snapshots (a CLI command, in the
   *  main thread): the check of a stat index may move into each folder to look its files up by bare name
   *  (stat-check.ts). Never in the checkpoint service or the extension host, whose folder other work shares. */
  ownsProcessFolder?: boolean;
}

/** Switches of the scan that core never reads from the environment itself: settings.ts composes them. */
export interface ScanTuning {
  /** Files a scan hashes itself before it hands the rest to a hashing thread; Infinity: never (one core: never). */
  hashThreadAfter: number;
  /** A fresh process writes the whole stat index again once the paths it found changed, times this, outnumber the
   *  paths the index knows; else it writes a patch beside it (stat-index-patch.ts). 0: always a patch when one can
   *  say it (tests). */
  staleIndexShare?: number;
  /** How recent a change (mtime or ctime) must be, at the scan that hashed a file, for the next scan to hash it again
   *  whatever its stat data says (default 2 s: every timestamp tick in use, FAT's included). Tests that run on a
   *  fine-grained file system lower it so that files written moments ago take the stat cache's fast paths. */
  racyMs?: number;
  /** The checkpointer's own fs.watch watcher watches at most this many folders, the next failing as they do when the
   *  system's limit (inotify's max_user_watches) is reached: tests of the fallback. Unset: the system's limit. */
  watchLimit?: number;
  /** 'fs.watch': the watcher never uses Node's bare watch handle (scan/folder-watch.ts): tests run both. */
  folderWatch?: 'handle' | 'fs.watch';
}

export const DEFAULT_SCAN_TUNING: ScanTuning = { hashThreadAfter: 2000, staleIndexShare: 256 };

/** A file of another tool's checkpoint to put into an imported snapshot (imported-snapshot.ts). */
export interface ImportedFile {
  /** Workspace-relative, '/'-separated. */
  path: string;
  /** The file whose bytes it had (read now), or null: it did not exist then. */
  source: string | null;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

export interface SnapshotSummary {
  sessionId: string;
  anchorId: string;
  kind: SnapshotKind;
  /** Tree hash of the workspace root. */
  root: string;
  files: number;
  totalBytes: number;
  /** Files whose content was hashed in this run (the rest came from the stat cache). */
  hashedFiles: number;
  /** Objects (blobs and trees) the store did not have yet. */
  newObjects: number;
  newBytes: number;
  skipped: SkippedFile[];
  /** Paths left out by .gitignore files or exclude globs (counted, not listed: there can be many). */
  ignoredCount: number;
  /** Snapshots dropped because the store outgrew its size cap. */
  pruned: { sessionId: string; anchorId: string }[];
  createdAt: string;
}

/** What the caller knows about the anchor from the session (the engine only knows its own records). */
export interface AnchorCheck {
  checkpointingEnabled: boolean;
  kind: 'user-message' | 'other-entry' | 'missing';
  /** The message's id as the user knows it, when the snapshot is kept under another key (an agent's prompt id): the
   *  messages name this one, never a key the user has not seen. */
  messageId?: string;
}

export type FileChange = FileChangePreview;

/** A file that differs between two snapshots, from A to B ('added': only at B, insertions: lines only B has). */
export type SnapshotFileDiff = FileDifference;

export interface RewindFilesResult {
  canRewind: boolean;
  error?: string;
  /** Files the rewind changes (dry run) or changed (real call). */
  filesChanged: string[];
  /** Lines added since the anchor in filesChanged, which the rewind removes. */
  insertions: number;
  /** Lines removed since the anchor in filesChanged, which the rewind brings back. */
  deletions: number;
  /** Files the user changed (see FileChangePreview.userModified): left alone unless overwriteUserModified. */
  userModified: string[];
  /** Files whose last change was another session's turn (or several sessions' at once): left alone unless
   *  includeOtherSessions. */
  otherSessions: string[];
  /** Files the rewind leaves alone, and why. */
  skipped: SkippedFile[];
  /** Every difference between now and the anchor; status says what happened since the anchor. */
  files: FileChange[];
  /** Dry run only: an interrupted or failed rewind the real one settles first (the figures above are from the files
   *  as it leaves them): finished, or rolled back, and the paths it changes. */
  recoveryFirst?: RecoveryFirst;
}

export interface RecoveryFirst {
  action: 'finished' | 'rolled back';
  paths: string[];
}

/**
 * Called right before a snapshot is committed or a restore starts, to throw when whoever asked has given up meanwhile
 * (the checkpoint service's requests carry deadlines): what its caller no longer waits for must not happen later.
 */
export type ActGuard = () => void;

/** A prompt's turn, named by its snapshot's session and anchor. */
export interface TurnRef {
  sessionId: string;
  anchorId: string;
}

/** The files an agent's own records say its tools wrote during one prompt's turn (SourceAdapter.filesWrittenByTurn),
 *  the paths workspace-relative with '/'. */
export interface TurnWrites extends TurnRef {
  paths: string[];
}

export interface RewindFilesOptions {
  dryRun?: boolean;
  overwriteUserModified?: boolean;
  /** Also bring back files whose last change since the message was another session's (or several sessions'). */
  includeOtherSessions?: boolean;
  /** Only these paths (workspace-relative, '/'-separated; a folder stands for everything below it) are brought back,
   *  whoever changed them; every other file is left as it is. */
  only?: string[];
  /** Files of which only these hunks are taken back (the rest of each stays as it is now), whoever changed them; like
   *  `only`, a selection: with either, nothing else is brought back. A file whose bytes are no longer those the hunks
   *  were chosen from (`hash`) is refused, and nothing is rewound. */
  hunks?: HunkSelection[];
  /** What agents' records say their tools wrote, turn by turn: a change the timeline finds outside every turn, right
   *  after a turn that wrote that file, is that turn's (an editor may write a file its tool made after the turn's end
   *  was snapshotted). */
  turnWrites?: TurnWrites[];
  anchor: AnchorCheck;
  /**
   * Dry run only, from the engine, which settles its rewind log's pending step before a real rewind plans
   * (rewind-recovery.ts): the store's interrupted restore is recovered in that earlier step (so what recovery leaves is
   * reported with the rewind only while its journal stays failed), and with `undoRewindOf` the interrupted rewind is
   * taken back: the newest file undo of that session, when it is not `filesTop` (the newest before it began).
   */
  settledFirst?: { undoRewindOf?: { sessionId: string; filesTop?: string } };
}

export interface RecoverResult {
  /** 'none': no interrupted restore; 'completed': rolled forward; 'rolledBack': put back as before. */
  outcome: 'none' | 'completed' | 'rolledBack';
  paths: string[];
  /**
   * Paths recovery left as they are: changed by someone since the restore (never overwritten), or that could not be
   * put back (then the journal stays, marked failed, and the next operation tries those again).
   */
  notRestored?: SkippedFile[];
}

/** One stored snapshot: the session it was taken for and its anchor. */
export interface SnapshotId {
  sessionId: string;
  anchorId: string;
}

export interface GcResult {
  removedObjects: number;
  freedBytes: number;
  prunedSnapshots: { sessionId: string; anchorId: string }[];
  /** What the compaction after it did (store-compaction.ts), when there was something to compact. */
  compacted?: { packs: number; objects: number; bytesBefore: number; bytesAfter: number };
}

/**
 * What the engine needs of a workspace's file checkpoints: FileCheckpointer in this thread (the CLI, tests) or
 * WorkerFileCheckpointer, which runs one in a worker thread so the extension host never blocks on a tree walk.
 */
export interface FileCheckpoints {
  /** The workspace folder (a realpath). */
  readonly workspaceRoot: string;
  snapshot(sessionId: string, anchorId: string, kind?: SnapshotKind): Promise<SnapshotSummary>;
  rewindFiles(sessionId: string, anchorId: string, opts: RewindFilesOptions): Promise<RewindFilesResult>;
  undoLastRewind(sessionId: string): Promise<RewindFilesResult>;
  /** The session's file undos, oldest first, as their pre-restore anchors, once a restore a crash interrupted is
   *  finished: the rewind log reads from it whether a rewind's files moved. */
  undoStack(sessionId: string): Promise<string[]>;
  readFileAtAnchor(sessionId: string, anchorId: string, relPath: string): Promise<Buffer | undefined>;
  /** A file's changes since the anchor as hunks a rewind can take back one by one (read only; rewindFiles' `hunks`
   *  names them by index and by the hash given here). */
  fileHunks(sessionId: string, anchorId: string, relPaths: readonly string[]): Promise<FileHunks[]>;
  listSnapshots(sessionId: string): Promise<SnapshotRecord[]>;
  /** The files that differ between two snapshots of this workspace, of one session or of two (a session and its fork,
   *  any two sessions of the folder); read from the store only; throws when one does not exist. */
  diffSnapshots(a: SnapshotId, b: SnapshotId): Promise<SnapshotFileDiff[]>;
  /** The changes to a file (workspace-relative) by any session's turns or by hand, newest first (the folder's timeline);
   *  a change right after a turn's end that its agent's records claim (`turnWrites`) is that turn's. */
  fileHistory(relPath: string, turnWrites?: TurnWrites[]): Promise<FileHistory>;
  /** Per line of a file now, the turn (or the user) that last wrote it (the folder's timeline, claims as fileHistory). */
  blame(relPath: string, turnWrites?: TurnWrites[]): Promise<FileBlame>;
  /** Every snapshot of this folder in the order taken, whichever session took it (timeline.ts); read only. */
  timelinePoints(): Promise<TimelinePoint[]>;
  /** A snapshot from another tool's saved copies of some files (see FileCheckpointer.importSnapshot). */
  importSnapshot(sessionId: string, anchorId: string, files: readonly ImportedFile[]): Promise<SnapshotSummary>;
  /** Another session's user-message snapshot recorded under this session too (see FileCheckpointer.adoptSnapshot). */
  adoptSnapshot(fromSessionId: string, fromAnchorId: string, sessionId: string, anchorId: string): Promise<SnapshotRecord | undefined>;
  notifyChanged(paths: Iterable<string>): void;
  setWatcherSync(sync: WatcherSync | undefined): void;
  dispose(): Promise<void>;
}

/** Who made a change on the folder's timeline: a prompt's turn of one session (`prompt`: its snapshot anchor, the user
 *  message id for our sessions), turns of several sessions at once, or nobody's turn (the user). */
export type ChangeOwner = { by: 'turn'; sessionId: string; prompt: string } | { by: 'several'; sessions: string[] } | { by: 'user' };

/** One change of a file's history (file-history.ts). */
export interface FileHistoryEntry {
  owner: ChangeOwner;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** The path after the change (before it, for a deletion). */
  path: string;
  /** For 'renamed': the path before. */
  from?: string;
  /** When the snapshot that first shows the change was taken, or 'now' (changed since the last snapshot). */
  at: string;
  insertions: number;
  deletions: number;
  binary: boolean;
  /** A unified diff of the change ('' for a binary file). */
  diff: string;
}

/** The turns whose agents' records may claim a change the timeline alone gives to nobody (attribution.ts,
 *  ChangeOwners): none when every change has its owner; else the caller may ask those agents and ask again with the
 *  files their tools wrote (`turnWrites`). */
export interface Claimable {
  claimable?: TurnRef[];
}

export interface FileHistory extends Claimable {
  path: string;
  /** Newest first. */
  entries: FileHistoryEntry[];
}

export interface BlameLine {
  /** 1-based. */
  line: number;
  text: string;
  owner: ChangeOwner;
}

export interface FileBlame extends Claimable {
  path: string;
  lines: BlameLine[];
}
