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

/** The request message of type K (it carries the id the client assigned). */
export type RequestMessage<M extends { type: string }, R extends ResultMap, K extends keyof R> = Extract<RequestOf<M, R>, { type: K }>;

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

  /** Sends the request `make` builds around the id this client assigns; resolves with the host's result for it. */
  request<K extends keyof R & string>(type: K, make: (requestId: number) => RequestMessage<M, R, K>): Promise<R[K]> {
    const id = this.nextId++;
    const message = make(id);
    if (message.type !== type || message.requestId !== id)
      return Promise.reject(new Error(`request ${type}: the message must be of that type and carry its id`));
    return new Promise<R[K]>((resolve, reject) => {
      // the result's type is the protocol's declaration for K (R), which the host's respond() is held to
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.post(message);
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

/** What the host does with a request: its result, or a message a person can read. */
export type Outcome<T> = { ok: true; result: T } | { ok: false; error: string };

/**
 * Host side: the answer function of a view whose request → result map is R. The request's own type picks the result
 * type (`rows` can only be answered with R['rows']), the same declaration RequestClient resolves the webview's
 * promise with. Made once per view, as TypeScript cannot take R explicitly and infer the request type in one call.
 */
export function responderFor<R extends ResultMap>() {
  return <K extends keyof R & string>(request: { type: K; requestId: number }, outcome: Outcome<R[K]>): ResponseMessage<R[K]> =>
    outcome.ok
      ? { type: 'response', requestId: request.requestId, ok: true, result: outcome.result }
      : { type: 'response', requestId: request.requestId, ok: false, error: outcome.error };
}
