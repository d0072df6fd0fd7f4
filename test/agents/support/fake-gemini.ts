// A scripted stand-in for the Gemini REST API, good enough for the real Gemini CLI (see
// /work/shared/notes/real-agents-2.md): `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for the main
// turns (requests that offer tools) is answered from a queue the test wrote, one reply per request; the side requests
// (`:generateContent`: the model router, which wants a JSON complexity score, and the session summary) get fixed
// answers. Every request is recorded so a test can check what the CLI sent (the history a resumed session carries).
//
// Bounded and recorded as every fake model is (scripted-server.ts).
import { sendJsonError, startScriptedServer, type ScriptedRequest, type ScriptedServer } from './scripted-server';

/** One part of a model reply: text, or a function call the CLI runs (run_shell_command, write_file, replace…). */
export type GeminiScriptItem = { text: string } | { call: string; args: Record<string, unknown> };
/** One model reply: its parts, in order. A reply with a function call makes the CLI run it and ask again. */
export type GeminiScriptReply = GeminiScriptItem[];

export type GeminiRecordedRequest = ScriptedRequest<Record<string, unknown>>;
/** Its `unscripted` are the main-turn requests that found the queue empty. */
export type FakeGemini = ScriptedServer<GeminiScriptReply, Record<string, unknown>>;

const MODEL = 'gemini-fake-pro';

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

export function startFakeGemini(opts: { replies?: GeminiScriptReply[]; closeAfter?: { after(fn: () => unknown): void } } = {}): Promise<FakeGemini> {
  return startScriptedServer<GeminiScriptReply, Record<string, unknown>>({
    ...opts,
    body: (parsed) => (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}),
    handle(req, res, rec, takeReply) {
      const streaming = rec.url.includes(':streamGenerateContent');
      if (req.method !== 'POST' || !(streaming || rec.url.includes(':generateContent'))) {
        sendJsonError(res, 404, { code: 404, message: 'not found', status: 'NOT_FOUND' });
        return;
      }
      let parts: Record<string, unknown>[];
      if (streaming && Array.isArray(rec.body.tools) && rec.body.tools.length > 0) {
        const reply = takeReply();
        if (!reply) {
          sendJsonError(res, 400, { code: 400, message: 'fake-gemini: no scripted reply left', status: 'INVALID_ARGUMENT' });
          return;
        }
        parts = reply.map(partOf);
      } else parts = [{ text: sideAnswer(rec.body) }];
      if (!streaming) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response(parts, true)));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      parts.forEach((p, i) => res.write(`data: ${JSON.stringify(response([p], i === parts.length - 1))}\n\n`));
      res.end();
    },
  });
}

/** Is this a main-turn request that carries a real user prompt as its last content (not a tool result)? */
export function lastUserText(body: Record<string, unknown>): string | undefined {
  const contents = Array.isArray(body.contents) ? (body.contents as { role?: string; parts?: Record<string, unknown>[] }[]) : [];
  const last = contents[contents.length - 1];
  if (last?.role !== 'user' || !Array.isArray(last.parts) || last.parts.some((p) => 'functionResponse' in p)) return undefined;
  return last.parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}
