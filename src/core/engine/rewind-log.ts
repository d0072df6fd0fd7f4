// What each "Rewind to here" changed, so Undo can put back all of it (the branch the session was on and the files)
// and Redo can apply it again. One small JSON file per session under <home>/rewind-log/, written atomically; the CLI
// and the extension share it, so `rewind --files` in a terminal can be undone from VS Code and the other way round.
// It only names branches and anchors: the branches themselves stay in the session file, the files' undo data in the
// checkpoint store. A log that cannot be read is treated as empty (undo then falls back to the files alone).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../files/atomic-write';

const stepSchema = z.object({
  anchorEntryId: z.string().min(1).max(500),
  /** 'conversation' | 'files' | 'all', as applied. */
  mode: z.enum(['all', 'conversation', 'files']),
  /** The active branch before the rewind and the one it made (our own sessions). */
  fromBranch: z.string().max(500).optional(),
  toBranch: z.string().max(500).optional(),
  /** Whether files were changed (and so a file undo exists for this step). */
  files: z.boolean(),
  /** A foreign session's fork: the new session file (it stays when the rewind is undone). */
  forkFile: z.string().optional(),
  /** How many file undos the session had right after this step: a different count later means files were rewound or
   *  put back outside the log, and the step no longer describes them. */
  undoDepth: z.number().int().min(0),
  at: z.string(),
});
export type RewindStep = z.infer<typeof stepSchema>;

const logSchema = z.object({ v: z.literal(1), undo: z.array(stepSchema).max(200), redo: z.array(stepSchema).max(200) });
type Log = z.infer<typeof logSchema>;

const MAX_STEPS = 50;

export class RewindLog {
  constructor(private readonly home: string) {}

  #file(sessionId: string): string {
    return join(this.home, 'rewind-log', `${createHash('sha256').update(sessionId).digest('hex').slice(0, 40)}.json`);
  }

  async #read(sessionId: string): Promise<Log> {
    try {
      const parsed = logSchema.safeParse(JSON.parse(await readFile(this.#file(sessionId), 'utf8')));
      if (parsed.success) return parsed.data;
    } catch {
      // missing or unreadable: nothing to undo through the log
    }
    return { v: 1, undo: [], redo: [] };
  }

  async #write(sessionId: string, log: Log): Promise<void> {
    await writeFileAtomic(this.#file(sessionId), JSON.stringify({ v: 1, undo: log.undo.slice(-MAX_STEPS), redo: log.redo.slice(-MAX_STEPS) }));
  }

  /** A rewind was applied: it can be undone, and what was undone before can no longer be redone. */
  async applied(sessionId: string, step: RewindStep): Promise<void> {
    const log = await this.#read(sessionId);
    await this.#write(sessionId, { v: 1, undo: [...log.undo, step], redo: [] });
  }

  async lastApplied(sessionId: string): Promise<RewindStep | undefined> {
    return (await this.#read(sessionId)).undo.at(-1);
  }

  async lastUndone(sessionId: string): Promise<RewindStep | undefined> {
    return (await this.#read(sessionId)).redo.at(-1);
  }

  /** The last applied step was undone: it moves to the redo stack. */
  async undone(sessionId: string): Promise<void> {
    const log = await this.#read(sessionId);
    const step = log.undo.pop();
    if (step) log.redo.push(step);
    await this.#write(sessionId, log);
  }

  /** The last undone step was applied again (with the file undo count it left). */
  async redone(sessionId: string, undoDepth: number): Promise<void> {
    const log = await this.#read(sessionId);
    const step = log.redo.pop();
    if (step) log.undo.push({ ...step, undoDepth });
    await this.#write(sessionId, log);
  }

  /** Files were rewound or put back outside the log (rewind-files, undo of the files alone): its steps no longer
   *  describe the files, so they are dropped rather than replayed over other changes. */
  async clear(sessionId: string): Promise<void> {
    await this.#write(sessionId, { v: 1, undo: [], redo: [] });
  }
}
