// The names a restore gives its temp files, in one place: the restore makes and removes them, recovery and its
// forecast look for them, and the watcher and the tracker pass over the reports of them.

/** The temp file of step `i` of the restore tagged `tag`. */
export const restoreTempName = (tag: string, i: number): string => `.arw-${tag}-${i}.tmp`;

/** The tag of the roll-back of the restore tagged `tag`: its temp files are told apart from the restore's. */
export const rollBackTag = (tag: string): string => `${tag}r`;

/** A restore's temp file name, its tag captured. */
export const RESTORE_TEMP = /^\.arw-([0-9a-z]+)-\d+\.tmp$/;
