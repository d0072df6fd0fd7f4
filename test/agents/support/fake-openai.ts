// A scripted stand-in for the OpenAI Responses API, good enough for the real Codex CLI (see
// /work/shared/notes/real-agents.md): it answers `POST /v1/responses` with the streaming server-sent events Codex
// reads (response.created, response.output_item.added, response.output_text.delta, response.output_item.done,
// response.completed), taking each reply from a queue the test wrote. Every request is recorded so a test can check
// what came back (tool outputs).
//
// Bounded: it listens on 127.0.0.1 only, caps request bodies, and closes itself when the test that started it ends
// (pass the test context) or when close() is called.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One item of a model reply: text, a shell command (the `exec_command` function tool) or an `apply_patch` edit
 *  (Codex's freeform custom tool, its input the raw patch text). */
export type ScriptItem = { text: string } | { exec: string; workdir?: string } | { patch: string };
/** One model reply: its output items, in order. A reply with a tool call makes Codex run it and ask again. */
export type ScriptReply = ScriptItem[];

export interface RecordedRequest {
  url: string;
  body: unknown;
  /** Index in the script of the reply it got; -1 when it got none. */
  replyIndex: number;
}

export interface FakeOpenAI {
  readonly port: number;
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  readonly unscripted: RecordedRequest[];
  push(...replies: ScriptReply[]): void;
  pending(): number;
  /** Every function_call_output / custom_tool_call_output the client sent back (deduplicated by call_id). */
  toolOutputs(): { call_id: string; output: unknown }[];
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;

const id = (prefix: string) => prefix + randomBytes(12).toString('hex');

function sse(res: ServerResponse, data: Record<string, unknown>): void {
  res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
}

function itemOf(s: ScriptItem): Record<string, unknown> {
  if ('text' in s)
    return { type: 'message', id: id('msg_'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: s.text, annotations: [] }] };
  if ('exec' in s)
    return {
      type: 'function_call',
      id: id('fc_'),
      call_id: id('call_'),
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: s.exec, ...(s.workdir ? { workdir: s.workdir } : {}) }),
      status: 'completed',
    };
  return { type: 'custom_tool_call', id: id('ctc_'), call_id: id('call_'), name: 'apply_patch', input: s.patch, status: 'completed' };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startFakeOpenAI(opts: { replies?: ScriptReply[]; closeAfter?: { after(fn: () => unknown): void } } = {}): Promise<FakeOpenAI> {
  const queue: ScriptReply[] = [...(opts.replies ?? [])];
  let served = 0;
  const requests: RecordedRequest[] = [];
  const unscripted: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      let body: unknown;
      try {
        body = await readBody(req);
      } catch (err) {
        res.writeHead(413).end(String(err));
        return;
      }
      const rec: RecordedRequest = { url: req.url ?? '', body, replyIndex: -1 };
      requests.push(rec);
      if (req.method !== 'POST' || !(req.url ?? '').includes('/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const reply = queue.shift();
      if (!reply) {
        unscripted.push(rec);
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'fake-openai: no scripted reply left', type: 'invalid_request_error' } }));
        return;
      }
      rec.replyIndex = served++;
      const responseId = id('resp_');
      const model = (body as { model?: string } | undefined)?.model ?? 'gpt-5.5';
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      sse(res, { type: 'response.created', response: { id: responseId, object: 'response', model, status: 'in_progress', output: [] } });
      const output: Record<string, unknown>[] = [];
      reply.forEach((s, i) => {
        const item = itemOf(s);
        sse(res, { type: 'response.output_item.added', output_index: i, item: 'text' in s ? { ...item, content: [], status: 'in_progress' } : item });
        if ('text' in s) sse(res, { type: 'response.output_text.delta', item_id: item.id, output_index: i, content_index: 0, delta: s.text });
        sse(res, { type: 'response.output_item.done', output_index: i, item });
        output.push(item);
      });
      sse(res, {
        type: 'response.completed',
        response: {
          id: responseId,
          object: 'response',
          model,
          status: 'completed',
          output,
          usage: {
            input_tokens: 100,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 20,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 120,
          },
        },
      });
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
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    unscripted,
    push: (...r) => void queue.push(...r),
    pending: () => queue.length,
    toolOutputs() {
      const seen = new Map<string, { call_id: string; output: unknown }>();
      for (const r of requests) {
        const input = (r.body as { input?: unknown[] } | undefined)?.input;
        for (const it of Array.isArray(input) ? input : []) {
          const o = it as { type?: string; call_id?: string; output?: unknown };
          if ((o.type === 'function_call_output' || o.type === 'custom_tool_call_output') && o.call_id && !seen.has(o.call_id))
            seen.set(o.call_id, { call_id: o.call_id, output: o.output });
        }
      }
      return [...seen.values()];
    },
    close,
  };
}
