// A scripted stand-in for the Anthropic Messages API, good enough for the real Claude Code CLI
// (see /work/shared/notes/real-agents.md): it answers `POST /v1/messages` with the streaming
// server-sent events in the documented order, taking each reply from a queue the test wrote, and
// `HEAD /api/hello`. Every request is recorded so a test can check what came back (tool results).
//
// Bounded: it listens on 127.0.0.1 only, caps request bodies, and closes itself when the test that
// started it ends (pass the test context) or when close() is called.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export type ScriptBlock = { text: string } | { tool_use: { name: string; input: Record<string, unknown> } };
/** One model reply: its content blocks, in order. A reply with a tool_use block ends with stop_reason tool_use. */
export type ScriptReply = ScriptBlock[];

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined for bodies that are not JSON, e.g. HEAD). */
  body: unknown;
  /** Index in the script of the reply it got; -1 when it got none. */
  replyIndex: number;
}

export interface FakeAnthropic {
  readonly port: number;
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Appends replies to the queue. */
  push(...replies: ScriptReply[]): void;
  /** Replies not consumed yet. */
  pending(): number;
  /** Requests to /v1/messages that arrived when the queue was empty (answered with an error). */
  readonly unscripted: RecordedRequest[];
  /** Every tool_result block the client sent back, in order. */
  toolResults(): { tool_use_id: string; content: unknown; is_error?: boolean }[];
  close(): Promise<void>;
}

export interface FakeAnthropicOptions {
  replies?: ScriptReply[];
  /** Request body cap in bytes (default 16 MiB). */
  maxBodyBytes?: number;
  /** Something with an `after(fn)` hook, e.g. node:test's TestContext: the server closes then. */
  closeAfter?: { after(fn: () => unknown): void };
  /** Model name echoed in message_start (default: the request's model). */
  model?: string;
}

const DEFAULT_MAX_BODY = 16 * 1024 * 1024;

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function id(prefix: string): string {
  return prefix + randomBytes(12).toString('hex');
}

function readBody(req: IncomingMessage, cap: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > cap) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Streams one scripted reply as the Messages API does. */
function streamReply(res: ServerResponse, reply: ScriptReply, model: string): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': id('req_'),
  });
  const usage = { input_tokens: 10, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  sse(res, 'message_start', {
    type: 'message_start',
    message: { id: id('msg_'), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
  });
  let outputTokens = 0;
  let usedTool = false;
  reply.forEach((block, index) => {
    if ('text' in block) {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
      outputTokens += Math.max(1, Math.ceil(block.text.length / 4));
    } else {
      usedTool = true;
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: id('toolu_'), name: block.tool_use.name, input: {} },
      });
      const json = JSON.stringify(block.tool_use.input);
      // Two chunks, as the real API splits partial JSON.
      const cut = Math.floor(json.length / 2);
      for (const part of [json.slice(0, cut), json.slice(cut)]) {
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
      }
      outputTokens += Math.max(1, Math.ceil(json.length / 4));
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: usedTool ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

export async function startFakeAnthropic(opts: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: ScriptReply[] = [...(opts.replies ?? [])];
  let served = 0;
  const requests: RecordedRequest[] = [];
  const unscripted: RecordedRequest[] = [];
  const cap = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? '/';
      let raw: Buffer;
      try {
        raw = await readBody(req, cap);
      } catch {
        res.writeHead(413).end();
        return;
      }
      let body: unknown;
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          body = undefined;
        }
      }
      const rec: RecordedRequest = { method: req.method ?? '', url, headers: req.headers, body, replyIndex: -1 };
      requests.push(rec);
      const path = url.split('?')[0];
      if (path === '/api/hello') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(req.method === 'HEAD' ? undefined : '{}');
        return;
      }
      if (req.method === 'POST' && path === '/v1/messages') {
        const reply = queue.shift();
        if (!reply) {
          unscripted.push(rec);
          // A 400 is not retried by the client, so a test that under-scripted fails fast.
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'fake-anthropic: no scripted reply left' } }));
          return;
        }
        rec.replyIndex = served++;
        const model = opts.model ?? (typeof (body as { model?: unknown })?.model === 'string' ? (body as { model: string }).model : 'claude-fake');
        streamReply(res, reply, model);
        return;
      }
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `fake-anthropic: ${req.method} ${path}` } }));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  // Keep-alive sockets would hold close() open; track and destroy them.
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  const api: FakeAnthropic = {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    unscripted,
    push: (...r) => void queue.push(...r),
    pending: () => queue.length,
    toolResults() {
      const out: { tool_use_id: string; content: unknown; is_error?: boolean }[] = [];
      const seen = new Set<string>();
      for (const r of requests) {
        const messages = (r.body as { messages?: unknown })?.messages;
        if (!Array.isArray(messages)) continue;
        for (const m of messages) {
          const content = (m as { content?: unknown })?.content;
          if (!Array.isArray(content)) continue;
          for (const b of content) {
            if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'tool_result') {
              const tr = b as { tool_use_id: string; content: unknown; is_error?: boolean };
              // Each request carries the whole conversation: count every tool result once.
              if (seen.has(tr.tool_use_id)) continue;
              seen.add(tr.tool_use_id);
              out.push({ tool_use_id: tr.tool_use_id, content: tr.content, is_error: tr.is_error });
            }
          }
        }
      }
      return out;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
      return closed;
    },
  };
  opts.closeAfter?.after(() => api.close());
  return api;
}
