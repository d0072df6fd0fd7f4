// What every scripted stand-in for a model API has alike (fake-openai.ts, fake-gemini.ts): a queue of replies the test
// writes, each request recorded with the index of the reply it got, requests that found the queue empty kept apart,
// request bodies capped and parsed as JSON. The API's own shape (routes, streaming, error bodies) is the caller's.
//
// Bounded: it listens on 127.0.0.1 only, and closes itself when the test that started it ends (pass the test context)
// or when close() is called.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const MAX_BODY = 32 * 1024 * 1024;

export interface ScriptedRequest<Body> {
  url: string;
  body: Body;
  /** Index in the script of the reply it got; -1 for a request the script does not answer, or when none was left. */
  replyIndex: number;
}

export interface ScriptedServer<Reply, Body> {
  readonly port: number;
  /** `http://127.0.0.1:<port>` followed by the API's base path. */
  readonly baseUrl: string;
  readonly requests: ScriptedRequest<Body>[];
  /** Scripted requests that found the queue empty (answered with an error). */
  readonly unscripted: ScriptedRequest<Body>[];
  /** Appends replies to the queue. */
  push(...replies: Reply[]): void;
  /** Replies not taken yet. */
  pending(): number;
  close(): Promise<void>;
}

export interface ScriptedServerOptions<Reply, Body> {
  replies?: Reply[];
  /** Something with an `after(fn)` hook, e.g. node:test's TestContext: the server closes then. */
  closeAfter?: { after(fn: () => unknown): void };
  /** Appended to the address in baseUrl (e.g. `/v1`). */
  basePath?: string;
  /** The body as the API's handler sees it; `parsed` is undefined when the body is not JSON. */
  body(parsed: unknown): Body;
  /**
   * Answers one recorded request. `takeReply()` gives the next scripted reply and notes its index in `rec`; when
   * none is left it files the request as unscripted and gives undefined (the handler then answers with an error).
   */
  handle(req: IncomingMessage, res: ServerResponse, rec: ScriptedRequest<Body>, takeReply: () => Reply | undefined): void;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(c as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** An error answer with a JSON body. */
export function sendJsonError(res: ServerResponse, status: number, error: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
}

export async function startScriptedServer<Reply, Body>(opts: ScriptedServerOptions<Reply, Body>): Promise<ScriptedServer<Reply, Body>> {
  const queue: Reply[] = [...(opts.replies ?? [])];
  let served = 0;
  const requests: ScriptedRequest<Body>[] = [];
  const unscripted: ScriptedRequest<Body>[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      let parsed: unknown;
      try {
        parsed = await readJson(req);
      } catch (err) {
        res.writeHead(413).end(String(err));
        return;
      }
      const rec: ScriptedRequest<Body> = { url: req.url ?? '', body: opts.body(parsed), replyIndex: -1 };
      requests.push(rec);
      opts.handle(req, res, rec, () => {
        const reply = queue.shift();
        if (reply === undefined) unscripted.push(rec);
        else rec.replyIndex = served++;
        return reply;
      });
    })();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections?.();
    await new Promise<void>((ok) => server.close(() => ok()));
  };
  opts.closeAfter?.after(close);
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}${opts.basePath ?? ''}`,
    requests,
    unscripted,
    push: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    close,
  };
}
