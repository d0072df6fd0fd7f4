// Which files a rewind brings back besides this session's own changes (issue 27): the user's, other sessions'. The
// engine's rewinds take it, the rewind log keeps it for redo, the file checkpoints get it as options.
import type { RewindFilesOptions } from '../files/types';
import type { RewindStep } from './rewind-log';

export interface FilesChoice {
  /** Also files whose last change since the message was the user's own. */
  overwriteUserModified?: boolean;
  /** Also files whose last change since the message was another session's turn (or several sessions' at once). */
  includeOtherSessions?: boolean;
  /** Exactly these files (workspace-relative; a folder stands for what is below it), whoever changed them. */
  only?: string[];
}

/** The options of FileCheckpoints.rewindFiles that carry a choice. */
export function choiceOptions(c: FilesChoice): Pick<RewindFilesOptions, 'overwriteUserModified' | 'includeOtherSessions' | 'only'> {
  return {
    overwriteUserModified: c.overwriteUserModified === true,
    ...(c.includeOtherSessions ? { includeOtherSessions: true } : {}),
    ...(c.only ? { only: c.only } : {}),
  };
}

/** The fields of a logged step that say what was chosen (only what differs from the default). */
export function choiceOfStep(c: FilesChoice | undefined): Pick<RewindStep, 'overwroteUserModified' | 'includedOtherSessions' | 'only'> {
  return {
    ...(c?.overwriteUserModified ? { overwroteUserModified: true } : {}),
    ...(c?.includeOtherSessions ? { includedOtherSessions: true } : {}),
    ...(c?.only ? { only: c.only } : {}),
  };
}

/** What a logged step chose, for its redo. */
export function choiceOfLoggedStep(step: RewindStep): FilesChoice {
  return {
    overwriteUserModified: step.overwroteUserModified === true,
    includeOtherSessions: step.includedOtherSessions === true,
    ...(step.only ? { only: step.only } : {}),
  };
}
