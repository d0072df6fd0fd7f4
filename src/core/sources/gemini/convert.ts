// Gemini CLI's message records → the pi-shaped entry tree. A `user` record is a prompt (its text parts), the
// `<session_context>` Gemini sends first (hidden), or tool results (`functionResponse` parts); a `gemini` record is a
// reply: its thoughts, its text, its tool calls (`toolCalls`, each with its result and `resultDisplay`, the diff of an
// edit; after a resume, `functionCall` parts of the content). A tool's result is shown once: with its call when the
// reply carries it, else from the `functionResponse` record (which is hidden when it repeats one already shown, as
// the `<id>_response` copies a resume writes do). Entry ids are the records' ids (`<id>:<n>` for a reply's results),
// so a prompt's entry id is the id a `$rewindTo` names. Other record kinds (info, error, warning) are passed over.
import type { AgentMessage, ContentBlock, MessageEntry, SessionEntry } from '../../session/types';
import { epochMs, obj, str, type JsonRecord } from '../jsonl-lines';
import type { GeminiReplay } from './replay';

export interface GeminiPrompt {
  entryId: string;
  text: string;
  /** Where its record's line starts in the file (for hook records, which saw the file's size). */
  byteOffset: number;
  timestamp: string;
}

export interface GeminiTree {
  entries: SessionEntry[];
  byId: Map<string, SessionEntry>;
  leafId: string | null;
  /** Typed prompts, in the order they were recorded. */
  prompts: GeminiPrompt[];
  /** The model of the newest reply. */
  model?: string;
}

const MAX_RESULT_TEXT = 64 * 1024;
const CONTEXT_PREFIX = '<session_context>';

const parts = (content: unknown): JsonRecord[] =>
  typeof content === 'string' ? [{ text: content }] : Array.isArray(content) ? content.map(obj).filter((p): p is JsonRecord => !!p) : [];

const textOf = (ps: readonly JsonRecord[]): string =>
  ps
    .map((p) => str(p.text))
    .filter((t): t is string => t !== undefined)
    .join('\n');

function capped(text: string): string {
  return text.length > MAX_RESULT_TEXT ? `${text.slice(0, MAX_RESULT_TEXT)}\n…` : text;
}

/** A function response's text: its output (or error), else the response as JSON. */
function responseText(fr: JsonRecord | undefined): { text: string; isError: boolean } {
  const response = obj(fr?.response);
  const output = str(response?.output);
  if (output !== undefined) return { text: output, isError: false };
  const error = str(response?.error);
  if (error !== undefined) return { text: error, isError: true };
  return { text: response ? JSON.stringify(response) : '', isError: false };
}

/** An edit's diff (write_file, replace): what a person wants to see of it. */
function displayText(display: unknown): string | undefined {
  const d = obj(display);
  const diff = str(d?.fileDiff);
  return diff ? diff.trimEnd() : undefined;
}

export function convertGeminiReplay(replay: GeminiReplay, opts: { promptOffsets?: 'lines' | 'unknown' } = {}): GeminiTree {
  const out: GeminiTree = { entries: [], byId: new Map(), leafId: null, prompts: [] };
  /** A record id → the last entry it produced (a hidden record: the entry before it). */
  const tailOf = new Map<string, string | null>();
  const shownCalls = new Set<string>();
  const add = (e: SessionEntry) => {
    // ids come from the file: one that repeats another entry's (a hostile `X:0` beside X's first result) gets a suffix
    for (let k = 1; out.byId.has(e.id); k++) e.id = `${e.id.replace(/#dup\d+$/, '')}#dup${k}`;
    out.entries.push(e);
    out.byId.set(e.id, e);
    return e.id;
  };

  for (const node of replay.nodes) {
    const rec = node.record;
    let tail: string | null = node.parent === null ? null : (tailOf.get(node.parent) ?? null);
    const timestamp = str(rec.timestamp) ?? '';
    const ms = epochMs(timestamp);
    const ps = parts(rec.content);
    if (rec.type === 'user') {
      const responses = ps.map((p) => obj(p.functionResponse)).filter((r): r is JsonRecord => !!r);
      const text = textOf(ps);
      if (responses.length === 0) {
        if (!text.trimStart().startsWith(CONTEXT_PREFIX)) {
          const content: ContentBlock[] = ps.flatMap((p): ContentBlock[] =>
            str(p.text) !== undefined ? [{ type: 'text', text: p.text as string }] : obj(p.inlineData) ? [{ type: 'text', text: '[image]' }] : [],
          );
          tail = add({ type: 'message', id: node.id, parentId: tail, timestamp, message: { role: 'user', content, timestamp: ms } } as MessageEntry);
          out.prompts.push({ entryId: tail, text, byteOffset: opts.promptOffsets === 'unknown' ? Number.MAX_SAFE_INTEGER : node.byteStart, timestamp });
        }
      } else {
        let n = 0;
        for (const fr of responses) {
          const callId = str(fr.id) ?? '';
          if (callId && shownCalls.has(callId)) continue;
          const { text: result, isError } = responseText(fr);
          const id = n === 0 ? node.id : `${node.id}:${n}`;
          n++;
          const message: AgentMessage = {
            role: 'toolResult',
            toolCallId: callId,
            toolName: str(fr.name) ?? 'tool',
            content: [{ type: 'text', text: capped(result) }],
            isError,
            timestamp: ms,
          };
          tail = add({ type: 'message', id, parentId: tail, timestamp, message } as MessageEntry);
          if (callId) shownCalls.add(callId);
        }
      }
    } else if (rec.type === 'gemini') {
      const content: ContentBlock[] = [];
      for (const t of Array.isArray(rec.thoughts) ? rec.thoughts : []) {
        const th = obj(t);
        const thinking = [str(th?.subject), str(th?.description)].filter(Boolean).join(': ');
        if (thinking) content.push({ type: 'thinking', thinking });
      }
      const text = textOf(ps);
      if (text) content.push({ type: 'text', text });
      const calls = (Array.isArray(rec.toolCalls) ? rec.toolCalls : []).map(obj).filter((c): c is JsonRecord => !!c);
      const callIds = new Set(calls.map((c) => str(c.id)).filter(Boolean));
      for (const c of calls) content.push({ type: 'toolCall', id: str(c.id) ?? '', name: str(c.name) ?? 'tool', arguments: obj(c.args) ?? {} });
      for (const p of ps) {
        const fc = obj(p.functionCall);
        if (fc && !callIds.has(str(fc.id)))
          content.push({ type: 'toolCall', id: str(fc.id) ?? '', name: str(fc.name) ?? 'tool', arguments: obj(fc.args) ?? {} });
      }
      const model = str(rec.model);
      if (model) out.model = model;
      const message: AgentMessage = { role: 'assistant', content, timestamp: ms, ...(model ? { model } : {}) };
      tail = add({ type: 'message', id: node.id, parentId: tail, timestamp, message } as MessageEntry);
      // each finished call's result, with the diff Gemini showed for it
      calls.forEach((c, i) => {
        const callId = str(c.id) ?? '';
        const results = (Array.isArray(c.result) ? c.result : []).map((r) => obj(obj(r)?.functionResponse)).filter((r): r is JsonRecord => !!r);
        if (!results.length && c.resultDisplay === undefined) return;
        const { text: result, isError } = responseText(results[0]);
        const diff = displayText(c.resultDisplay);
        const id = `${node.id}:${i}`;
        const resultMessage: AgentMessage = {
          role: 'toolResult',
          toolCallId: callId,
          toolName: str(c.name) ?? 'tool',
          content: [{ type: 'text', text: capped(diff ? `${result}\n\n${diff}` : result) }],
          isError: isError || c.status === 'error',
          timestamp: ms,
        };
        tail = add({ type: 'message', id, parentId: tail, timestamp, message: resultMessage } as MessageEntry);
        if (callId) shownCalls.add(callId);
      });
    }
    tailOf.set(node.id, tail);
  }
  const last = replay.current[replay.current.length - 1];
  out.leafId = last === undefined ? null : (tailOf.get(last) ?? null);
  return out;
}
