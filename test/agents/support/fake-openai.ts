// A scripted stand-in for OpenAI's API, good enough for the real agent CLIs that speak it (see
// /work/shared/notes/real-agents.md and real-agents-2.md), one server for both of its wire formats:
// - `POST /v1/responses` (the Responses API, Codex): the streaming server-sent events Codex reads
//   (response.created, response.output_item.added, response.output_text.delta, response.output_item.done,
//   response.completed);
// - `POST /v1/chat/completions` (Chat Completions, OpenCode's openai-compatible provider): the streamed chunks it
//   reads (role delta, text deltas, tool-call deltas, a finish chunk, a usage chunk, `[DONE]`). A request without
//   tools (OpenCode's title request) gets a fixed title and takes nothing from the queue.
// Each scripted request takes the next reply from one queue the test wrote; every request is recorded so a test can
// check what the agent sent (scripted-server.ts).
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJsonError, startScriptedServer, type ScriptedRequest, type ScriptedServer } from './scripted-server';

/**
 * One item of a model reply: text, or a call of one of the agent's function tools with its arguments. For Codex
 * (Responses only) also a shell command (its `exec_command` function tool) and an `apply_patch` edit (its freeform
 * custom tool, the input the raw patch text).
 */
export type ScriptItem = { text: string } | { tool: string; args: Record<string, unknown> } | { exec: string; workdir?: string } | { patch: string };
/** One model reply: its items, in order. A reply with a tool call makes the agent run it and ask again. */
export type ScriptReply = ScriptItem[];

/** What the agents send (the fields the tests read); undefined when the body is not a JSON object. */
export type OpenAIRequestBody =
  | {
      model?: string;
      /** Chat Completions: the conversation. */
      messages?: { role: string; content?: unknown; tool_call_id?: string }[];
      /** Responses: the conversation. */
      input?: unknown[];
      tools?: unknown[];
      [k: string]: unknown;
    }
  | undefined;

export type RecordedRequest = ScriptedRequest<OpenAIRequestBody>;
export type FakeOpenAI = ScriptedServer<ScriptReply, OpenAIRequestBody>;

const id = (prefix: string) => prefix + randomBytes(12).toString('hex');
const USAGE = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };

function responsesItem(s: ScriptItem): Record<string, unknown> {
  if ('text' in s)
    return { type: 'message', id: id('msg_'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: s.text, annotations: [] }] };
  if ('patch' in s) return { type: 'custom_tool_call', id: id('ctc_'), call_id: id('call_'), name: 'apply_patch', input: s.patch, status: 'completed' };
  const [name, args] = 'exec' in s ? ['exec_command', { cmd: s.exec, ...(s.workdir ? { workdir: s.workdir } : {}) }] : [s.tool, s.args];
  return { type: 'function_call', id: id('fc_'), call_id: id('call_'), name, arguments: JSON.stringify(args), status: 'completed' };
}

function streamResponses(res: ServerResponse, model: string, reply: ScriptReply): void {
  const sse = (data: Record<string, unknown>) => res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
  const responseId = id('resp_');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  sse({ type: 'response.created', response: { id: responseId, object: 'response', model, status: 'in_progress', output: [] } });
  const output: Record<string, unknown>[] = [];
  reply.forEach((s, i) => {
    const item = responsesItem(s);
    sse({ type: 'response.output_item.added', output_index: i, item: 'text' in s ? { ...item, content: [], status: 'in_progress' } : item });
    if ('text' in s) sse({ type: 'response.output_text.delta', item_id: item.id, output_index: i, content_index: 0, delta: s.text });
    sse({ type: 'response.output_item.done', output_index: i, item });
    output.push(item);
  });
  const usage = {
    input_tokens: USAGE.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: USAGE.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: USAGE.total_tokens,
  };
  sse({ type: 'response.completed', response: { id: responseId, object: 'response', model, status: 'completed', output, usage } });
  res.end();
}

/** Items Chat Completions cannot carry (Codex's own tools), by their key. */
const responsesOnly = (reply: ScriptReply) => reply.filter((s) => 'exec' in s || 'patch' in s).map((s) => Object.keys(s)[0]);

function streamChatCompletion(res: ServerResponse, model: string, reply: ScriptReply): void {
  const chunkId = id('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (rest: Record<string, unknown>) =>
    res.write(`data: ${JSON.stringify({ id: chunkId, object: 'chat.completion.chunk', created, model, ...rest })}\n\n`);
  const send = (delta: Record<string, unknown>, finish: string | null = null) => chunk({ choices: [{ index: 0, delta, finish_reason: finish }] });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  send({ role: 'assistant', content: '' });
  let toolIndex = 0;
  for (const item of reply) {
    if ('text' in item) send({ content: item.text });
    else if ('tool' in item) {
      const index = toolIndex++;
      send({ tool_calls: [{ index, id: id('call_'), type: 'function', function: { name: item.tool, arguments: '' } }] });
      send({ tool_calls: [{ index, function: { arguments: JSON.stringify(item.args) } }] });
    }
  }
  send({}, toolIndex > 0 ? 'tool_calls' : 'stop');
  chunk({ choices: [], usage: USAGE });
  res.end('data: [DONE]\n\n');
}

export function startFakeOpenAI(opts: { replies?: ScriptReply[]; closeAfter?: { after(fn: () => unknown): void } } = {}): Promise<FakeOpenAI> {
  return startScriptedServer<ScriptReply, OpenAIRequestBody>({
    ...opts,
    basePath: '/v1',
    body: (parsed) => (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as OpenAIRequestBody) : undefined),
    handle(req, res, rec, takeReply) {
      const url = req.url ?? '';
      const chat = url.endsWith('/chat/completions');
      if (req.method !== 'POST' || !(chat || url.includes('/responses'))) {
        sendJsonError(res, 404, { message: 'not found' });
        return;
      }
      const model = typeof rec.body?.model === 'string' ? rec.body.model : chat ? 'fake-model' : 'gpt-5.5';
      if (chat && !(Array.isArray(rec.body?.tools) && rec.body.tools.length > 0)) {
        streamChatCompletion(res, model, [{ text: 'Scripted session' }]);
        return;
      }
      const reply = takeReply();
      if (!reply) {
        sendJsonError(res, 400, { message: 'fake-openai: no scripted reply left', type: 'invalid_request_error' });
        return;
      }
      const wrong = chat ? responsesOnly(reply) : [];
      if (wrong.length) {
        sendJsonError(res, 400, {
          message: `fake-openai: a Chat Completions reply cannot hold ${wrong.join(', ')} (Codex's Responses tools)`,
          type: 'invalid_request_error',
        });
        return;
      }
      (chat ? streamChatCompletion : streamResponses)(res, model, reply);
    },
  });
}
