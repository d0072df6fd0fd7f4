// Request/response over postMessage: the webview assigns ids, the host answers each id once with a typed result.
// Kept apart from protocol.ts so the webview bundles get this without zod.

/** The fields of the host's answer to a request. `ok: false` carries a message a person can read. */
export type ResponseFields<R> = { requestId: number; ok: true; result: R } | { requestId: number; ok: false; error: string };

/** The host's answer to a request. */
export type ResponseMessage<R> = { type: 'response' } & ResponseFields<R>;

/** The message types of a direction that expect a response, mapped to their result types. */
export type ResultMap = Record<string, unknown>;

/** The request messages of a union: those that carry a requestId and have a result type in `R`. */
export type RequestOf<M extends { type: string }, R extends ResultMap> = Extract<M, { type: keyof R; requestId: number }>;

/** What a caller passes to `RequestClient.request`: the message without its id (the client assigns it). */
export type RequestBody<M extends { type: string }, R extends ResultMap, K extends keyof R> = Omit<Extract<RequestOf<M, R>, { type: K }>, 'requestId'>;

function isResponse(m: unknown): m is ResponseMessage<unknown> {
  return (
    typeof m === 'object' &&
    m !== null &&
    'type' in m &&
    m.type === 'response' &&
    'requestId' in m &&
    typeof m.requestId === 'number' &&
    'ok' in m &&
    typeof m.ok === 'boolean'
  );
}

/**
 * Webview side of requests: assigns ids, and resolves each promise with the typed result when the host answers
 * (rejects with the host's error message when it answers `ok: false`). `dispose` rejects what is still open.
 */
export class RequestClient<M extends { type: string }, R extends ResultMap> {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(private readonly post: (message: M) => void) {}

  request<K extends keyof R & string>(body: RequestBody<M, R, K>): Promise<R[K]> {
    const id = this.nextId++;
    return new Promise<R[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // the body is a request of M without its id; with the id it is that request again (TypeScript cannot follow
      // Omit through a generic union, so this one line says so; callers are checked against RequestBody)
      this.post({ ...body, requestId: id } as unknown as M);
    });
  }

  /** Feed every message from the host here; returns true when it was a response to one of our requests. */
  handle(message: unknown): boolean {
    if (!isResponse(message)) return false;
    const waiting = this.pending.get(message.requestId);
    if (!waiting) return false;
    this.pending.delete(message.requestId);
    if (message.ok) waiting.resolve(message.result);
    else waiting.reject(new Error(message.error));
    return true;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  dispose(): void {
    for (const p of this.pending.values()) p.reject(new Error('The view was closed.'));
    this.pending.clear();
  }
}

/** Host side: the response message for a request, typed by its result. */
export function respond<R>(requestId: number, outcome: { ok: true; result: R } | { ok: false; error: string }): ResponseMessage<R> {
  return outcome.ok ? { type: 'response', requestId, ok: true, result: outcome.result } : { type: 'response', requestId, ok: false, error: outcome.error };
}
