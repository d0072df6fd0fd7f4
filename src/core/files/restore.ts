// Applying a restore: each path is set to a target state (absent, folder, file or symlink) with per-file atomic
// writes, after every parent is checked with lstat. A journal written before the first change lets recover()
// finish an interrupted restore (or put everything back), so a crash never leaves it half-done.
import { closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, rmdirSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';
import { readFile, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-write';
import { isObjectHash, type ObjectStore } from './object-store';
import { absPath, ensureSafeParents, ensureSafeParentsSync, PathSafetyError, splitRelPath } from './safe-paths';
import type { EntryState } from './snapshot-records';

export interface RestoreOp {
  path: string;
  from: EntryState;
  to: EntryState;
}

const stateSchema = z.union([
  z.null(),
  z.object({ kind: z.enum(['file', 'symlink']), hash: z.string().refine(isObjectHash), mode: z.number().int().min(0).max(0o7777) }),
  z.object({ kind: z.literal('dir') }),
]);
const journalSchema = z.object({
  v: z.literal(1),
  tag: z.string().regex(/^[0-9a-z]{1,40}$/),
  workspaceRoot: z.string(),
  ops: z.array(z.object({ path: z.string(), from: stateSchema, to: stateSchema })),
  /** Store-side bookkeeping to finish after the workspace is done (e.g. the undo record). */
  after: z.unknown().optional(),
});
export type Journal = z.infer<typeof journalSchema>;


/**
 * Splits type changes into a removal plus a creation and orders everything so each step can run:
 * files go first, then folders deepest first, then new folders shallowest first, then new files.
 */
export function orderOps(ops: RestoreOp[]): RestoreOp[] {
  const removeFiles: RestoreOp[] = [];
  const removeDirs: RestoreOp[] = [];
  const makeDirs: RestoreOp[] = [];
  const writes: RestoreOp[] = [];
  for (const op of ops) {
    const fromDir = op.from?.kind === 'dir';
    const toDir = op.to?.kind === 'dir';
    if (op.to === null) (fromDir ? removeDirs : removeFiles).push(op);
    else if (toDir) {
      if (op.from !== null && !fromDir) removeFiles.push({ path: op.path, from: op.from, to: null });
      makeDirs.push({ path: op.path, from: fromDir ? op.from : null, to: op.to });
    } else {
      if (fromDir) removeDirs.push({ path: op.path, from: op.from, to: null });
      writes.push({ path: op.path, from: fromDir ? null : op.from, to: op.to });
    }
  }
  const depth = (p: string) => p.split('/').length;
  removeDirs.sort((a, b) => depth(b.path) - depth(a.path));
  makeDirs.sort((a, b) => depth(a.path) - depth(b.path));
  return [...removeFiles, ...removeDirs, ...makeDirs, ...writes];
}

/** Writes whose rename may be in flight at once (the thread pool has 4 threads). */
const WRITES_IN_FLIGHT = 8;

export function invertOps(ops: RestoreOp[]): RestoreOp[] {
  return ops.map((o) => ({ path: o.path, from: o.to, to: o.from }));
}

export class Restorer {
  constructor(
    private readonly workspaceRoot: string,
    private readonly store: ObjectStore,
    private readonly journalFile: string,
  ) {}

  private tmpName(tag: string, i: number): string {
    return `.arw-${tag}-${i}.tmp`;
  }

  /** Parent folders already checked in this run (lstat of every component, once per folder). */
  private checkedParents = new Map<string, boolean>();

  private parentsOk(rel: string, create: boolean): boolean {
    const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    if (parent === '') return true;
    const key = `${create ? '+' : '-'}${parent}`;
    let ok = this.checkedParents.get(key);
    if (ok === undefined) {
      ok = ensureSafeParentsSync(this.workspaceRoot, rel, create);
      this.checkedParents.set(key, ok);
    }
    return ok;
  }

  /**
   * Sets one path to its target state. Idempotent, so a replay after a crash is safe. Synchronous on purpose: a
   * restore is thousands of tiny steps, and a thread-pool round trip per step made it several times slower. The one
   * exception is the final rename of a written file (see applyAll).
   */
  async applyOp(op: RestoreOp, tag: string, i: number): Promise<void> {
    const rename = this.applyOpSync(op, tag, i, op.to !== null && op.to.kind !== 'dir' ? await this.store.read(op.to.hash, 'blob') : undefined);
    if (rename) await rename();
  }

  /** Does the step; for a file or symlink written through a temp file, returns the rename that completes it. */
  private applyOpSync(op: RestoreOp, tag: string, i: number, data: Buffer | undefined): (() => Promise<void>) | undefined {
    const root = this.workspaceRoot;
    splitRelPath(op.path);
    const abs = absPath(root, op.path);
    if (op.to === null) {
      if (!this.parentsOk(op.path, false)) return;
      const st = lstatSync(abs, { throwIfNoEntry: false });
      if (!st) return; // already gone
      if (st.isDirectory()) {
        if (op.from?.kind !== 'dir') throw new PathSafetyError(`${op.path} is a folder now; refusing to remove it`);
        try {
          rmdirSync(abs);
        } catch (err) {
          // a folder that still holds files checkpoints do not cover stays
          const code = (err as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw err;
        }
      } else unlinkSync(abs);
      return;
    }
    this.parentsOk(op.path, true);
    if (op.to.kind === 'dir') {
      const st = lstatSync(abs, { throwIfNoEntry: false });
      if (st?.isDirectory()) return;
      if (st) throw new PathSafetyError(`${op.path} exists and is not a folder`);
      mkdirSync(abs);
      return;
    }
    const tmp = join(dirname(abs), this.tmpName(tag, i));
    const to = op.to;
    const makeTemp = () => {
      if (to.kind === 'symlink') return symlinkSync(data!.toString('utf8'), tmp); // a link is recreated, never written through
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        writeSync(fd, data!);
        fchmodSync(fd, to.mode);
      } finally {
        closeSync(fd);
      }
    };
    try {
      makeTemp();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      unlinkSync(tmp); // left by a killed run of this same journal
      makeTemp();
    }
    // rename(2) over an existing file makes ext4 start writing the new data out first (auto_da_alloc): about half a
    // millisecond each, which is why these run a few at a time on the thread pool
    return async () => {
      try {
        await rename(tmp, abs); // never onto a folder: rename(2) refuses that with EISDIR
      } catch (err) {
        await unlink(tmp).catch(() => {}); // already gone
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EISDIR' || code === 'ENOTEMPTY') throw new PathSafetyError(`${op.path} is a folder now; refusing to replace it`);
        throw err;
      }
    };
  }

  /** Removes temp files a killed restore may have left (their names are derived from the journal). */
  private async cleanTemps(ops: RestoreOp[], tag: string): Promise<void> {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (op.to === null || op.to.kind === 'dir') continue;
      try {
        if (!(await ensureSafeParents(this.workspaceRoot, op.path, false))) continue;
        await unlink(join(dirname(absPath(this.workspaceRoot, op.path)), this.tmpName(tag, i)));
      } catch {
        /* not there */
      }
    }
  }

  /**
   * Runs a whole restore under the journal. On an error it puts back what it changed and rethrows.
   * `after` is kept in the journal so recover() can finish the store-side bookkeeping too.
   */
  async run(ops: RestoreOp[], tag: string, after?: unknown): Promise<void> {
    const ordered = orderOps(ops);
    const journal: Journal = { v: 1, tag, workspaceRoot: this.workspaceRoot, ops: ordered, after };
    await writeFileAtomic(this.journalFile, JSON.stringify(journal), { durable: true });
    try {
      await this.applyAll(ordered, tag);
    } catch (err) {
      await this.rollBack(ordered, tag).catch(() => {}); // best effort; the journal stays if this fails too
      throw err;
    }
  }

  /**
   * Removals and folders go one by one in order; the writes (last in the order, each to its own path, parents made
   * before) overlap: up to WRITES_IN_FLIGHT of them wait for their rename at once. Every write in flight is waited
   * for before an error is passed on, so a roll-back never races one.
   */
  private async applyAll(ordered: RestoreOp[], tag: string): Promise<void> {
    this.checkedParents = new Map();
    const inFlight = new Set<Promise<void>>();
    let failure: { err: unknown } | undefined;
    const drain = async () => {
      await Promise.all(inFlight);
      if (failure) throw failure.err;
    };
    for (let i = 0; i < ordered.length && !failure; i++) {
      const op = ordered[i]!;
      if (op.to === null || op.to.kind === 'dir') {
        await drain();
        await this.applyOp(op, tag, i);
      } else {
        if (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
        if (failure) break;
        const p: Promise<void> = this.applyOp(op, tag, i).catch((err) => {
          failure ??= { err };
        }).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      if (i % 256 === 255) await new Promise((r) => setImmediate(r)); // let the host breathe on big restores
    }
    await drain();
  }

  private async rollBack(ordered: RestoreOp[], tag: string): Promise<void> {
    await this.cleanTemps(ordered, tag);
    const inverse = orderOps(invertOps(ordered));
    const rtag = tag + 'r';
    await this.applyAll(inverse, rtag);
    await this.cleanTemps(inverse, rtag);
    await unlink(this.journalFile).catch(() => {});
  }

  async finish(): Promise<void> {
    await unlink(this.journalFile).catch(() => {});
  }

  async readJournal(): Promise<Journal | undefined> {
    let text: string;
    try {
      text = await readFile(this.journalFile, 'utf8');
    } catch {
      return undefined;
    }
    let parsed;
    try {
      parsed = journalSchema.safeParse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) throw new Error(`the restore journal ${this.journalFile} is damaged; it was left in place for inspection`);
    for (const op of parsed.data.ops) splitRelPath(op.path); // a crafted journal must not reach outside either
    return parsed.data;
  }

  /** Completes an interrupted restore; if that fails, puts the workspace back as it was before it. */
  async recover(journal: Journal): Promise<'completed' | 'rolledBack'> {
    const ops = journal.ops;
    try {
      await this.applyAll(ops, journal.tag);
      await this.cleanTemps(ops, journal.tag);
      return 'completed';
    } catch {
      await this.rollBack(ops, journal.tag);
      return 'rolledBack';
    }
  }
}

