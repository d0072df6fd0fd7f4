// Which files a rewind brings back besides this session's own changes (issue 27): the user's, other sessions'. The
// engine's rewinds take it, the rewind log keeps it for redo, the file checkpoints get it as options.
import type { HunkSelection, RewindFilesResult, RewindFilesOptions } from '../files/types';
import type { RewindStep } from './rewind-log';

export interface FilesChoice {
  /** Also files whose last change since the message was the user's own. */
  overwriteUserModified?: boolean;
  /** Also files whose last change since the message was another session's turn (or several sessions' at once). */
  includeOtherSessions?: boolean;
  /** Exactly these files (workspace-relative; a folder stands for what is below it), whoever changed them. */
  only?: string[];
  /** Only these hunks of these files (whoever changed them); with `only`, the whole selection. */
  hunks?: HunkSelection[];
}

/** The options of FileCheckpoints.rewindFiles that carry a choice. */
export function choiceOptions(c: FilesChoice): Pick<RewindFilesOptions, 'overwriteUserModified' | 'includeOtherSessions' | 'only' | 'hunks'> {
  return {
    overwriteUserModified: c.overwriteUserModified === true,
    ...(c.includeOtherSessions ? { includeOtherSessions: true } : {}),
    ...(c.only ? { only: c.only } : {}),
    ...(c.hunks ? { hunks: c.hunks } : {}),
  };
}

/**
 * The choice as the rewind applied it: each hunk selection keyed by the hash of the bytes its hunks were taken from
 * (a terminal user may give none), so that a redo takes back the very same hunks, or refuses when the file is no
 * longer those bytes.
 */
export function choiceAsApplied(c: FilesChoice, result: Pick<RewindFilesResult, 'files'>): FilesChoice {
  if (!c.hunks) return c;
  const hashes = new Map(result.files.flatMap((f) => (f.partial ? [[f.path, f.partial.hash] as const] : [])));
  return { ...c, hunks: c.hunks.map((h) => (h.hash !== undefined || !hashes.has(h.path) ? h : { ...h, hash: hashes.get(h.path)! })) };
}

/** The fields of a logged step that say what was chosen (only what differs from the default). */
export function choiceOfStep(c: FilesChoice | undefined): Pick<RewindStep, 'overwroteUserModified' | 'includedOtherSessions' | 'only' | 'hunks'> {
  return {
    ...(c?.overwriteUserModified ? { overwroteUserModified: true } : {}),
    ...(c?.includeOtherSessions ? { includedOtherSessions: true } : {}),
    ...(c?.only ? { only: c.only } : {}),
    ...(c?.hunks ? { hunks: c.hunks } : {}),
  };
}

/** What a logged step chose, for its redo. */
export function choiceOfLoggedStep(step: RewindStep): FilesChoice {
  return {
    overwriteUserModified: step.overwroteUserModified === true,
    includeOtherSessions: step.includedOtherSessions === true,
    ...(step.only ? { only: step.only } : {}),
    ...(step.hunks ? { hunks: step.hunks } : {}),
  };
}
