// A FIFO where a reader must never wait: opening a FIFO for reading blocks until a writer comes, so a reader that opens
// one the ordinary way hangs (a synchronous one with the whole event loop). The guard makes such a test fail instead
// of hang: a child process opens the FIFO for writing after `ms` (and again for each later reader), which lets a
// blocked open return (and then read EOF), and leaves a mark that it had to. A reader that never waited leaves the child blocked until dispose() ends it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, utimesSync } from 'node:fs';

export interface FifoGuard {
  /** Whether a reader was still blocked on the FIFO when the time ran out. */
  fired(): boolean;
  dispose(): void;
}

export function makeFifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path}: ${r.stderr}`);
}

const WRITER = `
const fs = require('fs');
const [fifo, mark, ms] = process.argv.slice(1);
setTimeout(() => {
  // every reader that blocks from now on is let go too (a reader may open the FIFO more than once)
  for (;;) {
    fs.closeSync(fs.openSync(fifo, 'w'));
    fs.writeFileSync(mark, 'a reader was blocked');
  }
}, Number(ms));`;

export function guardFifo(path: string, ms = 5000): FifoGuard {
  const mark = `${path}.guard-fired`;
  const child: ChildProcess = spawn(process.execPath, ['-e', WRITER, path, mark, String(ms)], { stdio: 'ignore', timeout: ms + 60_000 });
  child.unref();
  return {
    fired: () => existsSync(mark),
    dispose: () => {
      child.kill('SIGKILL');
    },
  };
}

/** Sets the file's access time before its modification time, so that any read of it (relatime) moves it. */
export function primeAtime(path: string): number {
  const old = new Date('2020-01-01T00:00:00Z');
  utimesSync(path, old, new Date());
  return old.getTime();
}
