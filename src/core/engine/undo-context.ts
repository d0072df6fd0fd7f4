// What undo, redo and the recovery of an interrupted rewind need from the engine: its own file, so that the two
// modules that use it (rewind-undo.ts, rewind-recovery.ts) do not import each other.
import type { FileCheckpoints, TurnWrites } from '../files/types';
import type { BranchInfo } from '../branches/derive';
import type { Warn } from '../branches/records';
import type { SessionView } from '../sources/session-view';
import type { RewindLog } from './rewind-log';

export interface UndoContext {
  log: RewindLog;
  view(sessionRef: string): Promise<SessionView>;
  checkpointerOf(session: SessionView): FileCheckpoints | undefined;
  /** What agents' records say their tools wrote in the turns a rewind of the session to `key` may meet: a redo
   *  attributes changes as the rewind did (turn-writes.ts). */
  turnWrites(session: SessionView, sessionRef: string, cp: FileCheckpoints, key: string): Promise<TurnWrites[]>;
  /** Makes a branch active (the log's own moves: not logged themselves). */
  switchBranch(sessionRef: string, name: string): Promise<BranchInfo>;
  /** The workspace folder whose log a session's rewinds are in. */
  folderOf(session: SessionView): string;
  checkpointingEnabled: boolean;
  warn: Warn;
}
