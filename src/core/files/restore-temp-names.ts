// The names a restore gives its temp files, in one place: the restore makes and removes them, recovery and its
// forecast look for them, and the watcher and the tracker pass over the reports of them.

/** The temp file of step `i` of the restore tagged `tag` (a roll-back's tag is its restore's with `r` after it). */
export const restoreTempName = (tag: string, i: number): string => `.arw-${tag}-${i}.tmp`;

/** A restore's temp file name, its tag captured. */
export const RESTORE_TEMP = /^\.arw-([0-9a-z]+)-\d+\.tmp$/;
