// The hashing thread of a big snapshot (blob-thread.ts starts it; bundled as dist/blob-thread-main.js): reads each
// file handed over as a snapshot does (readStableFile), hashes it, compresses it when asked as a bulk snapshot's pack
// does, and hands back exactly the bytes PackWriter.addPrepared stores.
import { parentPort } from 'node:worker_threads';
import { readStableFile } from '../safe-read';
import { bulkStored, hashObject } from '../store/object-format';
import type { BlobReply, BlobRequest } from './blob-thread';

const port = parentPort;
if (!port) throw new Error('blob-thread-main must run in a worker thread');

// what goes back is moved, not copied: a clone copies a view's whole backing memory, and deflateRawSync's output of a
// small file sits in a 16 KiB one (a small read in Buffer's shared pool), so cloning sent ~4x the stored bytes and
// the calling thread copied them again; a view that does not own its memory exactly is first cut out to its length
const own = (b: Uint8Array): Uint8Array => (b.byteOffset === 0 && b.buffer.byteLength === b.byteLength ? b : new Uint8Array(b));

port.on('message', (batch: BlobRequest) => {
  const moved: ArrayBuffer[] = [];
  const replies = batch.map(([id, path, compress]): BlobReply => {
    try {
      const { data, st } = readStableFile(path);
      const { stored, deflated } = bulkStored(data, compress);
      const out = own(stored);
      moved.push(out.buffer as ArrayBuffer);
      return [id, hashObject('blob', data), data.length, out, deflated, undefined, [st.mtimeMs, st.ctimeMs, st.ino, st.dev]];
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return [id, null, 0, null, false, code ?? String(err), null];
    }
  });
  port.postMessage(replies, moved);
});
