// One lstat per workspace path for checks that run back to back over the same paths at one moment: a rewind's plan
// refuses what the restore would (checkPlannedPaths) and then looks for a report the watcher missed (differingOnDisk),
// each over the ~1,000 planned paths and their folders, and each lstat costs ~5-20 µs. The two run with no turn of the
// event loop between them, so nothing this process does (a write, a watcher report) can come in between, and another
// process's change is as likely to fall between two lstats of a path microseconds apart as just before the first:
// sharing the answer makes neither check older than the other's was. Closed once the moment is over, so that no
// answer is given after something may have run (an await that waits for I/O).
import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { fsPath } from '../file-names';

type Answer = { st: Stats | undefined } | { err: unknown };

export class LstatMoment {
  private readonly answers = new Map<string, Answer>();
  private closed = false;
  /** lstat(2) calls made (for tests). */
  calls = 0;

  constructor(private readonly root: string) {}

  /**
   * lstatSync of the workspace-relative `rel` ('' the root) with throwIfNoEntry off: undefined when nothing is there,
   * and any other failure thrown, to every caller alike. Asked again for the same path, the same answer, until closed.
   */
  lstat(rel: string): Stats | undefined {
    if (this.closed) return this.ask(rel);
    let a = this.answers.get(rel);
    if (!a) {
      try {
        a = { st: this.ask(rel) };
      } catch (err) {
        a = { err };
      }
      this.answers.set(rel, a);
    }
    if ('err' in a) throw a.err;
    return a.st;
  }

  /** The moment is over: every later call looks on disk again. */
  close(): void {
    this.closed = true;
    this.answers.clear();
  }

  private ask(rel: string): Stats | undefined {
    this.calls++;
    return lstatSync(fsPath(rel === '' ? this.root : join(this.root, rel)), { throwIfNoEntry: false });
  }
}
