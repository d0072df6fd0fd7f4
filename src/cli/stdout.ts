// The CLI's standard output, written with plain write(2) calls: creating process.stdout for a pipe loads the net
// module and a stream (a few ms of every short command), and a reader that has gone away is easier to handle here.
import { writeSync } from 'node:fs';

let readerGone = false;

/** Writes all of `text` to fd 1. Once the reader has gone (`| head`), the rest is dropped quietly: the command still
 *  finishes its work and its exit code stands. */
export function writeStdout(text: string): void {
  if (readerGone) return;
  const data = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < data.length) {
    try {
      done += writeSync(1, data, done);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') {
        readerGone = true;
        return;
      }
      // a non-blocking pipe whose reader is slow: wait a moment for room
      if (code === 'EAGAIN') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      else throw err;
    }
  }
}
