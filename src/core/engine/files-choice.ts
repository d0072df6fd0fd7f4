// Which files a rewind brings back besides this session's own changes (issue 27): the user's, other sessions'. The
// engine's rewinds take it, the rewind log keeps it for redo, the file checkpoints get it as options.
import type { RewindFilesOptions } from '../files/types';
import type { RewindStep } from './rewind-log';

export interface FilesChoice {
  /** Also files whose last change since the message was the user's own. */
  overwriteUserModified?: boolean;
  /** Also files whose last change since the message was another session's turn (or several sessions' at once). */
  includeOtherSessions?: boolean;
}

/** The options of FileCheckpoints.rewindFiles that carry a choice. */
export function choiceOptions(c: FilesChoice): Pick<RewindFilesOptions, 'overwriteUserModified' | 'includeOtherSessions'> {
  return { overwriteUserModified: c.overwriteUserModified === true, ...(c.includeOtherSessions ? { includeOtherSessions: true } : {}) };
}

/** The fields of a logged step that say what was chosen (only what differs from the default). */
export function choiceOfStep(c: FilesChoice | undefined): Pick<RewindStep, 'overwroteUserModified' | 'includedOtherSessions'> {
  return { ...(c?.overwriteUserModified ? { overwroteUserModified: true } : {}), ...(c?.includeOtherSessions ? { includedOtherSessions: true } : {}) };
}

/** What a logged step chose, for its redo. */
export function choiceOfLoggedStep(step: RewindStep): FilesChoice {
  return { overwriteUserModified: step.overwroteUserModified === true, includeOtherSessions: step.includedOtherSessions === true };
}
