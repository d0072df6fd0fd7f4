// Child process of thread-exit.test.ts. 'hash': hands one file to a hashing thread and prints its hash, with nothing
// else keeping the process alive while it waits, and never closes the thread; 'compact': a snapshot whose files are
// hashed on a thread, then a compaction (its own thread), by a checkpointer never disposed. Each must then exit by
// itself, at once.
import { FileCheckpointer } from '../../../src/core/files';
import { BlobThread } from '../../../src/core/files/workers/blob-thread';

async function main(): Promise<void> {
  const [mode, a, b] = process.argv.slice(2);
  if (mode === 'hash') {
    const prepared = await new BlobThread().prepare(a!, false);
    process.stdout.write(`hash ${prepared.hash}\n`);
    return;
  }
  const fc = new FileCheckpointer({ workspaceRoot: a!, home: b!, storeDir: b!, tuning: { hashThreadAfter: 1 } });
  const s = await fc.snapshot('s', 'u1', 'user-message');
  await fc.compact();
  process.stdout.write(`compact ${s.files} ${s.hashedFiles}\n`);
}
main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err));
  process.exit(1);
});
