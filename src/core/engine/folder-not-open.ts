// The one wording for "this session's files are elsewhere": the engine, undo and redo all say it the same way.
/** A session's files live in a folder this window (or this command) does not have open: nothing is touched. */
export class FolderNotOpenError extends Error {
  constructor(
    readonly folder: string,
    consequence: string,
  ) {
    super(`This session's folder (${folder}) is not open in this window, so ${consequence}.`);
  }
}
