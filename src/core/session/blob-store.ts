// Content-addressed blob store: large image payloads live in <home>/blobs/<sha256> and the session file only holds
// `blob:sha256:<hex>`, which keeps session files small and stores a repeated image once.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { FileSessionStorage, type SessionStorage } from './storage';

export const BLOB_REF_PREFIX = 'blob:sha256:';
const HASH_RE = /^[0-9a-f]{64}$/;

export function isBlobRef(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(BLOB_REF_PREFIX) && HASH_RE.test(value.slice(BLOB_REF_PREFIX.length));
}

export function blobRef(hash: string): string {
  return BLOB_REF_PREFIX + hash;
}

export class BlobStore {
  constructor(
    readonly dir: string,
    private readonly storage: SessionStorage = new FileSessionStorage(),
  ) {}

  /** Stores bytes (atomically, once per content) and returns their sha256 hex. */
  async put(bytes: Buffer): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const path = join(this.dir, hash);
    if (await this.storage.exists(path)) return hash;
    this.storage.ensureDirSync(this.dir);
    await this.storage.writeTextAtomic(path, bytes);
    return hash;
  }

  /** The bytes of a blob, or undefined when it is missing. The hash is validated so it can never name a path. */
  async get(hash: string): Promise<Buffer | undefined> {
    if (!HASH_RE.test(hash)) return undefined;
    const path = join(this.dir, hash);
    if (!(await this.storage.exists(path))) return undefined;
    return this.storage.readBytesFrom(path, 0);
  }

  async has(hash: string): Promise<boolean> {
    return HASH_RE.test(hash) && this.storage.exists(join(this.dir, hash));
  }
}
