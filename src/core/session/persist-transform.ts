// What an entry looks like on disk: huge strings truncated, transient streaming fields dropped, big images moved to
// the blob store. The in-memory entry is never changed; a transformed copy is made only where something differs.
import { createHash } from 'node:crypto';
import { blobRef, isBlobRef, type BlobStore } from './blob-store';

export const MAX_PERSIST_CHARS = 500_000;
export const TRUNCATION_NOTICE = '[Session persistence truncated large content]';
export const BLOB_EXTERNALIZE_THRESHOLD = 1024;
const TRANSIENT_FIELDS = new Set(['partialJson', 'jsonlEvents']);

export interface PendingBlob {
  hash: string;
  bytes: Buffer;
}

function truncate(s: string): string {
  if (s.length <= MAX_PERSIST_CHARS) return s;
  // one character less rather than half of a surrogate pair (an emoji), which no reader could decode
  const high = s.charCodeAt(MAX_PERSIST_CHARS - 1);
  const cut = high >= 0xd800 && high <= 0xdbff ? MAX_PERSIST_CHARS - 1 : MAX_PERSIST_CHARS;
  return s.slice(0, cut) + '\n\n' + TRUNCATION_NOTICE;
}

function isImageBlock(v: unknown): boolean {
  return !!v && typeof v === 'object' && (v as { type?: unknown }).type === 'image' && typeof (v as { data?: unknown }).data === 'string';
}

function transform(value: unknown, blobs: PendingBlob[], inContentArray: boolean): unknown {
  if (typeof value === 'string') return truncate(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const t = transform(value[i], blobs, inContentArray);
      if (t !== value[i]) (out ??= value.slice())[i] = t;
    }
    return out ?? value;
  }
  const obj = value as Record<string, unknown>;
  if (inContentArray && isImageBlock(obj) && !isBlobRef(obj.data) && (obj.data as string).length >= BLOB_EXTERNALIZE_THRESHOLD) {
    const bytes = Buffer.from(obj.data as string, 'base64');
    const hash = createHash('sha256').update(bytes).digest('hex');
    blobs.push({ hash, bytes });
    const copy: Record<string, unknown> = { ...obj, data: blobRef(hash) };
    for (const k of Object.keys(copy)) if (TRANSIENT_FIELDS.has(k)) delete copy[k];
    return copy;
  }
  let out: Record<string, unknown> | undefined;
  for (const key in obj) {
    if (TRANSIENT_FIELDS.has(key)) {
      out ??= { ...obj };
      delete out[key];
      continue;
    }
    const v = obj[key];
    const t = transform(v, blobs, key === 'content' && Array.isArray(v));
    if (t !== v) (out ??= { ...obj })[key] = t;
  }
  if (out && typeof out.content === 'string' && typeof out.lineCount === 'number' && out.content !== obj.content) {
    out.lineCount = out.content.split('\n').length;
  }
  return out ?? obj;
}

/** The on-disk form of an entry (or header) plus the blobs that must be stored before the line is written. */
export function prepareForPersist<T>(entry: T): { value: T; blobs: PendingBlob[] } {
  const blobs: PendingBlob[] = [];
  return { value: transform(entry, blobs, false) as T, blobs };
}

/** Stores pending blobs; the store deduplicates by hash. */
export async function storeBlobs(store: BlobStore, blobs: PendingBlob[]): Promise<void> {
  for (const b of blobs) await store.put(b.bytes);
}

/** Replaces blob refs in image blocks of `content` (message / custom_message) with base64 again. Returns missing hashes. */
export async function resolveBlobRefs(content: unknown, store: BlobStore): Promise<string[]> {
  const missing: string[] = [];
  if (!Array.isArray(content)) return missing;
  for (const block of content) {
    if (isImageBlock(block) && isBlobRef(block.data)) {
      const hash = block.data.slice('blob:sha256:'.length);
      const bytes = await store.get(hash);
      if (bytes) (block as { data: string }).data = bytes.toString('base64');
      else missing.push(hash);
    }
  }
  return missing;
}
