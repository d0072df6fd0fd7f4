// Applying a restore: each path is set to a target state (absent, folder, file or symlink) with per-file atomic
// writes, after every parent is checked with lstat. A journal written before the first change lets recover()
// finish an interrupted restore (or put everything back), so a crash never leaves it half-done.
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, rename, rmdir, symlink, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-write';
import { isObjectHash, type ObjectStore } from './object-store';
import { absPath, ensureSafeParents, PathSafetyError, splitRelPath } from './safe-paths';
import type { EntryState } from './snapshot-records';
import { Limiter } from './workspace-model';

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

const isLink = (s: EntryState) => s !== null && s.kind !== 'dir';

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
  private checkedParents = new Map<string, Promise<boolean>>();

  private parentsOk(rel: string, create: boolean): Promise<boolean> {
    const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    if (parent === '') return Promise.resolve(true);
    const key = `${create ? '+' : '-'}${parent}`;
    let p = this.checkedParents.get(key);
    if (!p) {
      p = ensureSafeParents(this.workspaceRoot, rel, create);
      this.checkedParents.set(key, p);
    }
    return p;
  }

  /** Sets one path to its target state. Idempotent, so a replay after a crash is safe. */
  async applyOp(op: RestoreOp, tag: string, i: number): Promise<void> {
    const root = this.workspaceRoot;
    splitRelPath(op.path);
    const abs = absPath(root, op.path);
    if (op.to === null) {
      if (!(await this.parentsOk(op.path, false))) return;
      let st;
      try {
        st = await lstat(abs);
      } catch {
        return; // already gone
      }
      if (st.isDirectory()) {
        if (op.from?.kind !== 'dir') throw new PathSafetyError(`${op.path} is a folder now; refusing to remove it`);
        await rmdir(abs).catch((err: NodeJS.ErrnoException) => {
          // a folder that still holds files checkpoints do not cover stays
          if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST' && err.code !== 'ENOENT') throw err;
        });
      } else await unlink(abs);
      return;
    }
    await this.parentsOk(op.path, true);
    if (op.to.kind === 'dir') {
      try {
        const st = await lstat(abs);
        if (st.isDirectory()) return;
        throw new PathSafetyError(`${op.path} exists and is not a folder`);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      await mkdir(abs);
      return;
    }
    const data = await this.store.read(op.to.hash, 'blob');
    const tmp = join(dirname(abs), this.tmpName(tag, i));
    const to = op.to;
    const makeTemp = async () => {
      if (to.kind === 'symlink') return symlink(data.toString('utf8'), tmp); // a link is recreated, never written through
      const h = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        await h.writeFile(data);
        await h.chmod(to.mode);
      } finally {
        await h.close();
      }
    };
    try {
      await makeTemp();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      await unlink(tmp); // left by a killed run of this same journal
      await makeTemp();
    }
    try {
      await rename(tmp, abs); // never onto a folder: rename(2) refuses that with EISDIR
    } catch (err) {
      await unlink(tmp).catch(() => {});
      if ((err as NodeJS.ErrnoException).code === 'EISDIR' || (err as NodeJS.ErrnoException).code === 'ENOTEMPTY') throw new PathSafetyError(`${op.path} is a folder now; refusing to replace it`);
      throw err;
    }
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
   * Applies ordered ops phase by phase; inside a phase (and, for folders, inside one depth) paths are independent,
   * so they run concurrently: per-file latency, not throughput, is what makes a big restore slow.
   */
  private async applyAll(ordered: RestoreOp[], tag: string): Promise<void> {
    this.checkedParents = new Map();
    const phaseOf = (op: RestoreOp) =>
      op.to === null ? (op.from?.kind === 'dir' ? `2:${9999 - op.path.split('/').length}` : '1') : op.to.kind === 'dir' ? `3:${op.path.split('/').length}` : '4';
    let i = 0;
    while (i < ordered.length) {
      const phase = phaseOf(ordered[i]!);
      let j = i;
      while (j < ordered.length && phaseOf(ordered[j]!) === phase) j++;
      const limiter = new Limiter(8);
      const batch: Promise<void>[] = [];
      for (let k = i; k < j; k++) batch.push(limiter.run(() => this.applyOp(ordered[k]!, tag, k)));
      const results = await Promise.allSettled(batch);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      i = j;
    }
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

export { isLink };
