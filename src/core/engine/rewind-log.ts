// What each rewind changed, so Undo can put back all of it (the branch the session was on and the files) and Redo
// can apply it again. ONE log per workspace folder, in the order the rewinds happened, whichever front-end made them
// (the extension, the CLI, the API) and whichever session of the folder they were made in: each step names its
// session, and the fork it wrote when the agent is one that resumes a fork (Claude Code, Codex). So "Undo Last Rewind"
// finds the last rewind made in the folder even when the active session is now that fork or another one.
//
// The log is also the journal of a rewind in progress (`pending`): written before the rewind's files or branch move,
// and replaced by the finished step in one atomic write, so a process killed in between leaves a record of what it
// was doing, which the next rewind, undo or redo of the folder finishes or rolls back (rewind-recovery.ts) before
// anything else. Every change to the log is made under its lock, held for the whole rewind, undo or redo.
//
// The log only names branches and anchors: the branches stay in the session file, the files' undo data in the
// checkpoint store. A log that cannot be read is treated as empty (undo then falls back to the files alone).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { withFileLock } from '../file-lock';
import { writeFileAtomic } from '../files/atomic-write';

/** Logs written before sessions were named by refs call the refs `sessionFile` and `forkFile` (they were paths, which
 *  are still the refs of file-per-session agents). */
const renamedFields = (v: unknown): unknown => {
  if (typeof v !== 'object' || v === null || 'sessionRef' in v) return v;
  const { sessionFile, forkFile, ...rest } = v as Record<string, unknown>;
  return { ...rest, sessionRef: sessionFile, ...(forkFile === undefined ? {} : { forkRef: forkFile }) };
};

const currentStepSchema = z.object({
  /** Names the step in `pending` and in the undo and redo lists. */
  id: z.string().min(1).max(100),
  /** The session the rewind was made in (its ref and id), and the fork it wrote for an agent that resumes forks. */
  sessionRef: z.string().min(1).max(4096),
  sessionId: z.string().min(1).max(500),
  forkRef: z.string().max(4096).optional(),
  forkSessionId: z.string().max(500).optional(),
  anchorEntryId: z.string().min(1).max(500),
  /** 'conversation' | 'files' | 'all', as applied. */
  mode: z.enum(['all', 'conversation', 'files']),
  /** The active branch before the rewind and the one it made (our own sessions). */
  fromBranch: z.string().max(500).optional(),
  toBranch: z.string().max(500).optional(),
  /** Whether files were changed (and so a file undo exists for this step). */
  files: z.boolean(),
  /** The rewind overwrote files changed by hand after the last turn: redo does the same. */
  overwroteUserModified: z.boolean().optional(),
  /** It also brought back files whose last change was another session's: redo does the same. */
  includedOtherSessions: z.boolean().optional(),
  /** It brought back only these files: redo does the same. */
  only: z.array(z.string().min(1).max(4096)).max(100_000).optional(),
  /** It took back only these hunks of these files (keyed by the bytes they were taken from): redo does the same. */
  hunks: z
    .array(
      z.object({
        path: z.string().min(1).max(4096),
        hunks: z.array(z.number().int().min(1)).min(1).max(100_000),
        hash: z.string().max(64).optional(),
      }),
    )
    .max(100_000)
    .optional(),
  /** How many file undos the session had right after this step: a different count later means files were rewound or
   *  put back outside the log, and the step no longer describes them. */
  undoDepth: z.number().int().min(0),
  at: z.string(),
});
const stepSchema = z.preprocess(renamedFields, currentStepSchema);
export type RewindStep = z.infer<typeof currentStepSchema>;

const pendingSchema = z.object({
  /** What was being done: a new rewind (`step` as far as it was known), or the undo or redo of the step `step.id`. */
  op: z.enum(['apply', 'undo', 'redo']),
  step: stepSchema,
  /** The session's newest file undo (its pre-restore anchor) before the operation: whether the files moved is read
   *  from whether it changed, once the store's own journal is recovered. */
  filesTop: z.string().max(500).optional(),
  startedAt: z.string(),
});
export type PendingRewind = z.infer<typeof pendingSchema>;

const logSchema = z.object({
  v: z.literal(2),
  folder: z.string(),
  undo: z.array(stepSchema).max(200),
  redo: z.array(stepSchema).max(200),
  pending: pendingSchema.optional(),
});
export type FolderRewindLog = z.infer<typeof logSchema>;

const MAX_STEPS = 100;

/** Which steps belong to a session: made in it, or made in its origin and written as this fork. */
export function ofSession(session: { sessionId: string; sessionRef?: string | undefined }): (step: RewindStep) => boolean {
  return (s) =>
    s.sessionId === session.sessionId ||
    s.forkSessionId === session.sessionId ||
    (session.sessionRef !== undefined && (s.sessionRef === session.sessionRef || s.forkRef === session.sessionRef));
}

export function newStepId(): string {
  return `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
}

export class RewindLog {
  /** In this process, one operation per folder at a time (the file lock is for other processes). */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(private readonly home: string) {}

  #base(folder: string): string {
    return join(this.home, 'rewind-log', `folder-${createHash('sha256').update(folder).digest('hex').slice(0, 40)}`);
  }

  async read(folder: string): Promise<FolderRewindLog> {
    try {
      const parsed = logSchema.safeParse(JSON.parse(await readFile(`${this.#base(folder)}.json`, 'utf8')));
      if (parsed.success && parsed.data.folder === folder) return parsed.data;
    } catch {
      // missing or unreadable: nothing to undo through the log
    }
    return { v: 2, folder, undo: [], redo: [] };
  }

  /** Replaces the folder's log (durably: it is the journal of a rewind in progress too). */
  async write(folder: string, log: FolderRewindLog): Promise<void> {
    const { pending, ...rest } = log;
    const out: FolderRewindLog = { ...rest, v: 2, folder, undo: log.undo.slice(-MAX_STEPS), redo: log.redo.slice(-MAX_STEPS) };
    if (pending) out.pending = pending;
    await writeFileAtomic(`${this.#base(folder)}.json`, JSON.stringify(out), { durable: true });
  }

  /** Runs fn holding the folder's log: one rewind, undo or redo of a folder at a time, across processes. A lock left
   *  by a killed process is taken over at once (file-lock.ts), and fn then finds its `pending`. */
  locked<T>(folder: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(folder) ?? Promise.resolve();
    const lock = `${this.#base(folder)}.lock`;
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        await mkdir(dirname(lock), { recursive: true });
        return withFileLock(lock, fn, { timeoutMs: 120_000 });
      });
    const tail = run.catch(() => undefined);
    this.#queues.set(folder, tail);
    void tail.then(() => {
      if (this.#queues.get(folder) === tail) this.#queues.delete(folder);
    });
    return run;
  }
}

/** The log with a rewind applied: it can be undone, and what was undone before can no longer be redone. */
export function withApplied(log: FolderRewindLog, step: RewindStep): FolderRewindLog {
  return { v: 2, folder: log.folder, undo: [...log.undo, step], redo: [] };
}

/** The log with step `id` undone: it moves to the redo list. */
export function withUndone(log: FolderRewindLog, id: string): FolderRewindLog {
  const step = log.undo.find((s) => s.id === id);
  return { v: 2, folder: log.folder, undo: log.undo.filter((s) => s.id !== id), redo: step ? [...log.redo, step] : log.redo };
}

/** The log with step `id` applied again (with the file undo count it left). */
export function withRedone(log: FolderRewindLog, id: string, undoDepth: number): FolderRewindLog {
  const step = log.redo.find((s) => s.id === id);
  return { v: 2, folder: log.folder, undo: step ? [...log.undo, { ...step, undoDepth }] : log.undo, redo: log.redo.filter((s) => s.id !== id) };
}

/** Files of the session were rewound or put back outside the log: its steps no longer describe the files, so they are
 *  dropped rather than replayed over other changes. */
export function withoutSession(log: FolderRewindLog, match: (s: RewindStep) => boolean): FolderRewindLog {
  return { v: 2, folder: log.folder, undo: log.undo.filter((s) => !match(s)), redo: log.redo.filter((s) => !match(s)) };
}
