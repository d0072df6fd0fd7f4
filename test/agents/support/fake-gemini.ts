// A scripted stand-in for the Gemini REST API, good enough for the real Gemini CLI (see
// /work/shared/notes/real-agents-2.md): `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for the main
// turns (requests that offer tools) is answered from a queue the test wrote, one reply per request; the side requests
// (`:generateContent`: the model router, which wants a JSON complexity score, and the session summary) get fixed
// answers. Every request is recorded so a test can check what the CLI sent (the history a resumed session carries).
//
// Bounded: it listens on 127.0.0.1 only, caps request bodies, and closes itself when the test that started it ends
// (pass the test context) or when close() is called.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One part of a model reply: text, or a function call the CLI runs (run_shell_command, write_file, replace…). */
export type GeminiScriptItem = { text: string } | { call: string; args: Record<string, unknown> };
/** One model reply: its parts, in order. A reply with a function call makes the CLI run it and ask again. */
export type GeminiScriptReply = GeminiScriptItem[];

export interface GeminiRecordedRequest {
  url: string;
  body: Record<string, unknown>;
  /** Index in the script of the reply it got; -1 for a side request or none. */
  replyIndex: number;
}

export interface FakeGemini {
  readonly port: number;
  readonly baseUrl: string;
  readonly requests: GeminiRecordedRequest[];
  /** Main-turn requests that found the queue empty. */
  readonly unscripted: GeminiRecordedRequest[];
  push(...replies: GeminiScriptReply[]): void;
  pending(): number;
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;
const MODEL = 'gemini-fake-pro';

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(c as Buffer);
  }
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const usage = { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 };

function response(parts: Record<string, unknown>[], last: boolean): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
    usageMetadata: usage,
    modelVersion: MODEL,
  };
}

function partOf(s: GeminiScriptItem): Record<string, unknown> {
  return 'text' in s ? { text: s.text } : { functionCall: { name: s.call, args: s.args } };
}

function sideAnswer(body: Record<string, unknown>): string {
  const config = (body.generationConfig ?? {}) as Record<string, unknown>;
  // the model router asks for a JSON complexity score (1-100; 0 fails its validation)
  if (config.responseMimeType === 'application/json') return JSON.stringify({ complexity_reasoning: 'scripted', complexity_score: 10 });
  return 'Scripted session';
}

export async function startFakeGemini(opts: { replies?: GeminiScriptReply[]; closeAfter?: { after(fn: () => unknown): void } } = {}): Promise<FakeGemini> {
  const queue: GeminiScriptReply[] = [...(opts.replies ?? [])];
  let served = 0;
  const requests: GeminiRecordedRequest[] = [];
  const unscripted: GeminiRecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      let body: Record<string, unknown>;
      try {
        body = await readBody(req);
      } catch (err) {
        res.writeHead(413).end(String(err));
        return;
      }
      const url = req.url ?? '';
      const rec: GeminiRecordedRequest = { url, body, replyIndex: -1 };
      requests.push(rec);
      const streaming = url.includes(':streamGenerateContent');
      if (req.method !== 'POST' || !(streaming || url.includes(':generateContent'))) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: 'not found', status: 'NOT_FOUND' } }));
        return;
      }
      const main = streaming && Array.isArray(body.tools) && body.tools.length > 0;
      let parts: Record<string, unknown>[];
      if (main) {
        const reply = queue.shift();
        if (!reply) {
          unscripted.push(rec);
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { code: 400, message: 'fake-gemini: no scripted reply left', status: 'INVALID_ARGUMENT' } }));
          return;
        }
        rec.replyIndex = served++;
        parts = reply.map(partOf);
      } else parts = [{ text: sideAnswer(body) }];
      if (!streaming) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response(parts, true)));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      parts.forEach((p, i) => res.write(`data: ${JSON.stringify(response([p], i === parts.length - 1))}\n\n`));
      res.end();
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
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    unscripted,
    push: (...replies) => queue.push(...replies),
    pending: () => queue.length,
    close,
  };
}

/** Is this a main-turn request that carries a real user prompt as its last content (not a tool result)? */
export function lastUserText(body: Record<string, unknown>): string | undefined {
  const contents = Array.isArray(body.contents) ? (body.contents as { role?: string; parts?: Record<string, unknown>[] }[]) : [];
  const last = contents[contents.length - 1];
  if (last?.role !== 'user' || !Array.isArray(last.parts) || last.parts.some((p) => 'functionResponse' in p)) return undefined;
  return last.parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}
