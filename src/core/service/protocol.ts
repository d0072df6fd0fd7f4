// The checkpoint service's wire protocol: one JSON object per line over a local socket, a request and then its
// response, any number of times on one connection. Requests are validated with zod before anything is looked at;
// a line over MAX_REQUEST_BYTES closes the connection. Only plain data crosses, as with the files worker.
import { z } from 'zod';

export const PROTOCOL_VERSION = 1;
/** A request is small (ids, a folder path, a few flags). */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** A response can list every file a rewind changes. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const id = z
  .string()
  .min(1)
  .max(400)
  .regex(/^[^\u0000-\u001f\u007f]+$/);
const folder = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[^\u0000]+$/);

const base = {
  v: z.literal(PROTOCOL_VERSION),
  id: z.number().int().nonnegative(),
  secret: z.string().min(1).max(256),
};
/** Every workspace request names the folder (a realpath, compared as is) and the client's checkpointer options. */
const ws = { ...base, workspace: folder, optionsKey: z.string().max(64 * 1024) };

export const requestSchema = z.discriminatedUnion('method', [
  z.object({ ...base, method: z.literal('ping') }).strict(),
  z.object({ ...ws, method: z.literal('snapshot'), sessionId: id, anchorId: id, kind: z.enum(['user-message', 'turn-end', 'pre-restore']) }).strict(),
  z
    .object({
      ...ws,
      method: z.literal('rewindFiles'),
      sessionId: id,
      anchorId: id,
      opts: z
        .object({
          dryRun: z.boolean().optional(),
          overwriteUserModified: z.boolean().optional(),
          anchor: z.object({ checkpointingEnabled: z.boolean(), kind: z.enum(['user-message', 'other-entry', 'missing']), messageId: id.optional() }).strict(),
        })
        .strict(),
    })
    .strict(),
  z.object({ ...ws, method: z.literal('undoLastRewind'), sessionId: id }).strict(),
  z.object({ ...ws, method: z.literal('listSnapshots'), sessionId: id }).strict(),
]);
export type ServiceRequest = z.infer<typeof requestSchema>;
export type ServiceMethod = ServiceRequest['method'];

/** Why a request was refused: the client falls back to its own checkpointer on 'not-served' and 'options-differ'. */
export type RefusalCode = 'bad-request' | 'unauthorized' | 'not-served' | 'options-differ' | 'failed' | 'too-large';

export type ServiceResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; code: RefusalCode; message: string };

export interface PingValue {
  pid: number;
  workspaces: string[];
  startedAt: string;
}

/** Splits a byte stream into lines; calls onOverflow (and stops) when one grows past maxBytes. */
export class LineReader {
  private buf = '';
  private dead = false;
  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}
  push(chunk: Buffer | string): void {
    if (this.dead) return;
    this.buf += chunk.toString();
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (Buffer.byteLength(line) > this.maxBytes) return this.overflow();
      if (line.trim()) this.onLine(line);
      if (this.dead) return;
    }
    if (Buffer.byteLength(this.buf) > this.maxBytes) this.overflow();
  }
  private overflow(): void {
    this.dead = true;
    this.buf = '';
    this.onOverflow();
  }
}
