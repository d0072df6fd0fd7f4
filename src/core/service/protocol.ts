// The checkpoint service's wire protocol: one JSON object per line over a local socket, a request and then its
// response, any number of times on one connection. Requests are validated with zod before anything is looked at;
// a line over MAX_REQUEST_BYTES closes the connection. Only plain data crosses, as with the files worker.
import { z } from 'zod';

// 2: every request carries its deadline (and a request its call id, which a liveness ping extends)
export const PROTOCOL_VERSION = 2;

/**
 * A request is never acted on after its caller has given up on it (issue 22: a service resumed from SIGSTOP took a
 * prompt's snapshot after the agent had edited files; a rewind the CLI reported as "may or may not have been done" was
 * applied 15 s later). Every request carries the moment its caller gives up, as wall-clock epoch ms, and the service
 * checks it before acting, before committing a snapshot's record and before a restore starts.
 *
 * Wall clock, because the clients are other processes and the hooks' Perl and curl clients can read no other clock
 * without loading a module; every party reads the same system clock on the same machine. It can go wrong only when
 * that clock is stepped during a wait: forward (or a suspend, during which it runs on while the callers' timers do
 * not) only makes the service refuse early, and the caller then does the work itself; backward by more than this
 * margin would let the service act up to that much late. The margin also covers the Perl client's whole seconds (it
 * sends floor(now) + limit, never later than its alarm) and the time between the service's check and its write.
 * NTP slews (at most 0.5 ms a second) and does not step a running clock by default.
 */
export const LATE_MARGIN_MS = 1_000;

/** Whether a request with this deadline must no longer be acted on. */
export const isLate = (deadline: number, now = Date.now()): boolean => now > deadline - LATE_MARGIN_MS;
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

const deadline = z.number().finite().positive();
/** A request's own random id, by which a liveness ping on another connection extends its deadline. */
const callId = z.string().regex(/^[0-9a-f]{16,64}$/);
const base = {
  v: z.literal(PROTOCOL_VERSION),
  id: z.number().int().nonnegative(),
  secret: z.string().min(1).max(256),
  /** When the caller gives up (epoch ms): see LATE_MARGIN_MS. */
  deadline,
};
/** Every workspace request names the folder (a realpath, compared as is) and the client's checkpointer options. */
const ws = { ...base, call: callId.optional(), workspace: folder, optionsKey: z.string().max(64 * 1024) };

export const requestSchema = z.discriminatedUnion('method', [
  // a ping on time moves the deadline of the request it names (still waited for) to `deadline`
  z.object({ ...base, method: z.literal('ping'), extend: z.object({ call: callId, deadline }).strict().optional() }).strict(),
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
          includeOtherSessions: z.boolean().optional(),
          only: z.array(z.string().min(1).max(4096)).max(10_000).optional(),
          hunks: z
            .array(
              z
                .object({
                  path: z.string().min(1).max(4096),
                  hunks: z.array(z.number().int().min(1).max(1_000_000)).min(1).max(100_000),
                  hash: z
                    .string()
                    .regex(/^[0-9a-f]{64}$/)
                    .optional(),
                })
                .strict(),
            )
            .max(10_000)
            .optional(),
          turnWrites: z
            .array(z.object({ sessionId: id, anchorId: id, paths: z.array(z.string().min(1).max(4096)).max(100_000) }).strict())
            .max(100_000)
            .optional(),
          anchor: z.object({ checkpointingEnabled: z.boolean(), kind: z.enum(['user-message', 'other-entry', 'missing']), messageId: id.optional() }).strict(),
          settledFirst: z
            .object({ undoRewindOf: z.object({ sessionId: id, filesTop: id.optional() }).strict().optional() })
            .strict()
            .optional(),
        })
        .strict(),
    })
    .strict(),
  z.object({ ...ws, method: z.literal('undoLastRewind'), sessionId: id }).strict(),
  z.object({ ...ws, method: z.literal('listSnapshots'), sessionId: id }).strict(),
  // serve one more folder too (what a hook or CLI that found its folder not served asks, through `serve --auto`)
  z.object({ ...ws, method: z.literal('serve') }).strict(),
  // stop (`agent-rewind serve --stop`): answered first, then the service stops as on its idle time
  z.object({ ...base, call: callId.optional(), method: z.literal('stop') }).strict(),
]);
export type ServiceRequest = z.infer<typeof requestSchema>;
export type ServiceMethod = ServiceRequest['method'];

/** Why a request was refused: the client falls back to its own checkpointer on 'not-served', 'options-differ',
 *  'version' (another protocol) and 'late' (past its deadline or its connection gone: nothing was done). */
export type RefusalCode = 'bad-request' | 'unauthorized' | 'not-served' | 'options-differ' | 'failed' | 'too-large' | 'late' | 'version';

export type ServiceResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; code: RefusalCode; message: string };

export interface PingValue {
  pid: number;
  workspaces: string[];
  startedAt: string;
  /** Who started it: `serve` by hand, `auto` (a hook or CLI command, `serve --auto`), `extension` (VS Code's worker
   *  thread). Older services leave these out. */
  origin?: ServiceOrigin;
  /** The resident memory of the process it runs in (for `extension`: the whole extension host). */
  rssBytes?: number;
  /** Snapshots, rewinds, lists and hooks it took on since it started (pings, `serve` and `stop` left out). */
  requests?: number;
  /** Its idle time in ms (0: never stops by itself) and how much of it is left now. */
  idleMs?: number;
  idleLeftMs?: number;
  /** The served folders where the system's watch limit left folders unwatched (checked with lstat on each request
   *  instead): how many, and what to do about it. Absent when every folder is watched. */
  watchLimit?: { workspace: string; folders: number; message: string }[];
}

export type ServiceOrigin = 'serve' | 'auto' | 'extension';

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
