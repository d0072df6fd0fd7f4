// Which rewind Undo and Redo act on. A command given a session (the view's `…` menu, the Undo and Redo buttons of a
// notification that named one) takes that session's last rewind, which includes one made in its origin that wrote
// it as a fork. The palette and the keybinding take the last rewind made in the workspace, wherever it was made, as
// an editor's Undo does: after Rewind to here on a Claude Code message and "Continue in Claude Code" the active
// session is the new fork, but the rewind to undo is the one just made (issue 23). When the workspace's rewind log
// holds nothing (rewinds made before it existed), the active session's last file rewind, as before. Pure over the
// engine, so it is tested without VS Code.
import type { UndoOutcome } from '../../core/engine';

export interface UndoRedoEngine {
  undoLastRewind(sessionRef: string): Promise<UndoOutcome>;
  redoRewind(sessionRef: string): Promise<UndoOutcome>;
  undoLastRewindInWorkspace(): Promise<UndoOutcome | undefined>;
  redoRewindInWorkspace(): Promise<UndoOutcome | undefined>;
}

/** An outcome and the session it was about (the one to show and to name in the follow-up button). */
export type TargetedOutcome = UndoOutcome & { sessionRef: string };

/**
 * Undo (or Redo, `which`) for a command: `given` is the session the command was invoked on, if any; `current` the
 * active session, asked only when the workspace's log has nothing. Undefined: no session to act on at all.
 */
export async function undoOrRedo(
  engine: UndoRedoEngine,
  which: 'undo' | 'redo',
  given: string | undefined,
  current: () => Promise<string | undefined>,
): Promise<TargetedOutcome | undefined> {
  const forSession = (file: string) => (which === 'undo' ? engine.undoLastRewind(file) : engine.redoRewind(file));
  // the session the command was given stays the one shown, also when the rewind was made in its origin
  if (given) return { ...(await forSession(given)), sessionRef: given };
  const inWorkspace = which === 'undo' ? await engine.undoLastRewindInWorkspace() : await engine.redoRewindInWorkspace();
  if (inWorkspace?.sessionRef) return { ...inWorkspace, sessionRef: inWorkspace.sessionRef };
  const file = await current();
  if (!file) return undefined;
  const outcome = await forSession(file);
  return { ...outcome, sessionRef: outcome.sessionRef ?? file };
}
