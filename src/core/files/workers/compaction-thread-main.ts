// The CPU side of a store compaction (compaction-thread.ts starts it; bundled as dist/compaction-thread-main.js):
// trains the deflate dictionary, and checks and recompresses each object handed over. On Linux it lowers its own
// priority (there a thread's nice value is its own), so that a snapshot or a restore on the other core is not slowed.
import { setPriority } from 'node:os';
import { deflateRawSync } from 'node:zlib';
import { parentPort } from 'node:worker_threads';
import { F_DEFLATED, F_DICT, F_TREE, hashObject, inflateStored, kindOf, MIN_DEFLATE } from '../store/object-format';
import type { CompactionReply, CompactionRequest, ObjectReply, WireObject } from './compaction-thread';

const port = parentPort;
if (!port) throw new Error('compaction-thread-main must run in a worker thread');
if (process.platform === 'linux') {
  try {
    setPriority(19);
  } catch {
    /* not allowed: it runs at the normal priority */
  }
}

/** The lines most shared between files, worth the most last (deflate reaches back 32 KiB, nearer is cheaper). */
function train(samples: [flags: number, rawSize: number, stored: Uint8Array][], size: number): Buffer | null {
  const counts = new Map<string, number>();
  for (const [flags, rawSize, stored] of samples) {
    let s: Buffer;
    try {
      s = inflateStored({ flags, rawSize }, Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength));
    } catch {
      continue;
    }
    const text = s.toString('latin1');
    const seen = new Set<string>();
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf('\n', start);
      const end = nl < 0 ? text.length : nl + 1;
      const line = text.slice(start, end);
      start = end;
      if (line.length < 8 || line.length > 512 || seen.has(line)) continue;
      seen.add(line);
      counts.set(line, (counts.get(line) ?? 0) + 1);
    }
  }
  const worth = (e: [string, number]) => (e[1] - 1) * e[0].length;
  const top = [...counts].filter((e) => e[1] > 1).sort((a, b) => worth(b) - worth(a));
  const picked: string[] = [];
  let n = 0;
  for (const [line] of top) {
    if (n + line.length > size) continue;
    picked.push(line);
    n += line.length;
    if (size - n < 8) break;
  }
  return picked.length ? Buffer.from(picked.reverse().join(''), 'latin1') : null;
}

let dict: Buffer | null = null;
/** The dictionary of each source pack whose F_DICT objects are handed over. */
const sources = new Map<string, Buffer | null>();

/** Checks one object (inflate, hash) and recompresses it when it is a blob. */
function recompress([hash, flags, rawSize, stored, pack]: WireObject): ObjectReply {
  try {
    const d = flags & F_DICT ? sources.get(pack) : undefined;
    const data = inflateStored({ flags, rawSize }, Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength), d ?? undefined);
    if (data.length !== rawSize || hashObject(kindOf(flags), data) !== hash) return [hash, false, null, 0];
    // trees are copied as they are (folder listings are mostly hashes, which no dictionary helps with), except those a
    // bulk pack stored raw (pack-writer.ts, PackKind.bulk): deflated without a dictionary, as every version reads them
    if (flags & F_TREE) {
      if (flags & F_DEFLATED || data.length < MIN_DEFLATE) return [hash, true, null, flags];
      const z = deflateRawSync(data, { level: 6 });
      return z.length < data.length ? [hash, true, z, flags | F_DEFLATED] : [hash, true, null, flags];
    }
    if (data.length < MIN_DEFLATE) return [hash, true, data, 0];
    const z = deflateRawSync(data, dict ? { level: 6, dictionary: dict } : { level: 6 });
    if (z.length >= data.length) return [hash, true, data, 0];
    return [hash, true, z, F_DEFLATED | (dict ? F_DICT : 0)];
  } catch {
    return [hash, false, null, 0];
  }
}

port.on('message', (m: CompactionRequest) => {
  switch (m.type) {
    case 'train':
      return port.postMessage({ dict: train(m.samples, m.size) } satisfies CompactionReply);
    case 'dict':
      dict = m.dict ? Buffer.from(m.dict) : null;
      return;
    case 'source':
      sources.set(m.pack, m.dict ? Buffer.from(m.dict) : null);
      return;
    case 'objects':
      return port.postMessage(m.items.map(recompress) satisfies CompactionReply);
  }
});
