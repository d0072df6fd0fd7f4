// A scripted stand-in for the OpenAI Chat Completions API, good enough for the real OpenCode CLI (see
// /work/shared/notes/real-agents-2.md): it answers `POST /v1/chat/completions` with the streamed chunks OpenCode's
// openai-compatible provider reads (role delta, text deltas, tool-call deltas, a finish chunk, a usage chunk,
// `[DONE]`), taking each reply from a queue the test wrote. A request without tools (OpenCode's title request) gets
// a fixed title and takes nothing from the queue. Every request is recorded so a test can check what came back.
//
// Bounded: it listens on 127.0.0.1 only, caps request bodies, and closes itself when the test that started it ends
// (pass the test context) or when close() is called.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One item of a model reply: text, or a call of one of the agent's tools with its arguments. */
export type ChatScriptItem = { text: string } | { tool: string; args: Record<string, unknown> };
/** One model reply: its items, in order. A reply with a tool call makes the agent run it and ask again. */
export type ChatScriptReply = ChatScriptItem[];

export interface ChatRequest {
  url: string;
  body: { messages?: { role: string; content?: unknown; tool_call_id?: string }[]; tools?: unknown[]; [k: string]: unknown } | undefined;
  /** Index in the script of the reply it got; -1 for a title request or when it got none. */
  replyIndex: number;
}

export interface FakeChatCompletions {
  readonly port: number;
  readonly baseUrl: string;
  readonly requests: ChatRequest[];
  readonly unscripted: ChatRequest[];
  push(...replies: ChatScriptReply[]): void;
  pending(): number;
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;
const id = (prefix: string) => prefix + randomBytes(12).toString('hex');

async function readBody(req: IncomingMessage): Promise<ChatRequest['body']> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(c as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
  } catch {
    return undefined;
  }
}

function streamReply(res: ServerResponse, model: string, items: ChatScriptReply): void {
  const chunkId = id('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const send = (delta: Record<string, unknown>, finish: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({ id: chunkId, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  send({ role: 'assistant', content: '' });
  let toolIndex = 0;
  for (const item of items) {
    if ('text' in item) {
      send({ content: item.text });
      continue;
    }
    const index = toolIndex++;
    send({ tool_calls: [{ index, id: id('call_'), type: 'function', function: { name: item.tool, arguments: '' } }] });
    send({ tool_calls: [{ index, function: { arguments: JSON.stringify(item.args) } }] });
  }
  send({}, toolIndex > 0 ? 'tool_calls' : 'stop');
  res.write(
    `data: ${JSON.stringify({ id: chunkId, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } })}\n\n`,
  );
  res.end('data: [DONE]\n\n');
}

export async function startFakeChatCompletions(
  opts: { replies?: ChatScriptReply[]; closeAfter?: { after(fn: () => unknown): void } } = {},
): Promise<FakeChatCompletions> {
  const queue: ChatScriptReply[] = [...(opts.replies ?? [])];
  let served = 0;
  const requests: ChatRequest[] = [];
  const unscripted: ChatRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      let body: ChatRequest['body'];
      try {
        body = await readBody(req);
      } catch (err) {
        res.writeHead(413).end(String(err));
        return;
      }
      const rec: ChatRequest = { url: req.url ?? '', body, replyIndex: -1 };
      requests.push(rec);
      if (req.method !== 'POST' || !(req.url ?? '').endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const model = typeof body?.model === 'string' ? body.model : 'fake-model';
      if (!Array.isArray(body?.tools) || body.tools.length === 0) {
        streamReply(res, model, [{ text: 'Scripted session' }]);
        return;
      }
      const reply = queue.shift();
      if (!reply) {
        unscripted.push(rec);
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'fake-chat-completions: no scripted reply left', type: 'invalid_request_error' } }));
        return;
      }
      rec.replyIndex = served++;
      streamReply(res, model, reply);
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
    close,
  };
}
