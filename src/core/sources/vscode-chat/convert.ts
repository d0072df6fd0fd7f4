// A replayed VS Code chat session (mutation-log.ts) as the pi-shaped entry tree every view reads: each request is a
// user message whose entry id is its `requestId`, followed by its response (markdown as assistant text, tool
// invocations as tool calls with their results, edits VS Code applied as edit calls); requests a mutation removed
// (an edited and resent request, an undone one) hang as an abandoned branch off the request they followed.
import type { ContentBlock, MessageEntry, SessionEntry } from '../../session/types';
import { obj, str, type JsonRecord } from '../jsonl-lines';
import type { ForeignTree } from '../foreign-session';
import type { RemovedRequests } from './mutation-log';
import { uriPath } from './uris';
import { filesEditedByRequest } from './written-files';

export interface ChatRequestInfo {
  requestId: string;
  text: string;
  /** Submit time, ms. */
  timestamp: number;
  modelId?: string;
  mode?: string;
  /** Removed from the session by VS Code (an abandoned branch). */
  removed: boolean;
}

export interface ConvertedChat extends ForeignTree {
  requests: ChatRequestInfo[];
  /** By request id, the files its response says VS Code's edit tools wrote (written-files.ts). */
  writes: Map<string, string[]>;
}

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function requestInfo(req: JsonRecord, removed: boolean): ChatRequestInfo | undefined {
  const requestId = str(req.requestId);
  if (!requestId) return undefined;
  const modeInfo = obj(req.modeInfo);
  const mode = str(modeInfo?.kind) ?? str(obj(modeInfo?.modeId)?.id) ?? str(modeInfo?.modeId);
  const modelId = str(req.modelId);
  return {
    requestId,
    text: str(obj(req.message)?.text) ?? '',
    timestamp: num(req.timestamp) ?? 0,
    ...(modelId ? { modelId } : {}),
    ...(mode ? { mode } : {}),
    removed,
  };
}

/** The session's entries: its requests root → last, then the removed ones as branches. */
export function convertChat(state: JsonRecord, removed: readonly RemovedRequests[]): ConvertedChat {
  const entries: SessionEntry[] = [];
  const byId = new Map<string, SessionEntry>();
  const lastOf = new Map<string, string>();
  const requests: ChatRequestInfo[] = [];
  const writes = new Map<string, string[]>();

  const addRequest = (req: JsonRecord, parentId: string | null, isRemoved: boolean): string | null => {
    const info = requestInfo(req, isRemoved);
    if (!info || byId.has(info.requestId)) return parentId;
    requests.push(info);
    const edited = filesEditedByRequest(req);
    if (edited.length) writes.set(info.requestId, edited);
    let cur: string | null = parentId;
    const iso = new Date(info.timestamp || 0).toISOString();
    const add = (id: string, message: MessageEntry['message']) => {
      const e: MessageEntry = { type: 'message', id, parentId: cur, timestamp: iso, message };
      entries.push(e);
      byId.set(id, e);
      cur = id;
    };
    add(info.requestId, { role: 'user', content: info.text, timestamp: info.timestamp });
    for (const m of responseMessages(req, info)) add(`${info.requestId}#${m.n}`, m.message);
    lastOf.set(info.requestId, cur!);
    return cur;
  };

  let leaf: string | null = null;
  for (const r of arr(state.requests)) {
    const req = obj(r);
    if (req) leaf = addRequest(req, leaf, false);
  }
  // removed runs, each off the request it followed; one may follow a request another removed run holds
  let pending = [...removed];
  for (let pass = 0; pending.length && pass < 64; pass++) {
    const later: RemovedRequests[] = [];
    for (const run of pending) {
      const after = run.afterRequestId;
      if (after !== undefined && !lastOf.has(after)) {
        later.push(run);
        continue;
      }
      let parent: string | null = after === undefined ? null : lastOf.get(after)!;
      for (const req of run.requests) parent = addRequest(req, parent, true);
    }
    if (later.length === pending.length) {
      // what they followed is gone from every record: they start a root of their own
      for (const run of later) {
        let parent: string | null = null;
        for (const req of run.requests) parent = addRequest(req, parent, true);
      }
      break;
    }
    pending = later;
  }
  return { entries, byId, leafId: leaf, requests, writes };
}

interface ResponseMessage {
  n: number;
  message: MessageEntry['message'];
}

/** A response's parts as assistant messages and tool results, in order. */
function responseMessages(req: JsonRecord, info: ChatRequestInfo): ResponseMessage[] {
  const out: ResponseMessage[] = [];
  const ts = num(obj(req.modelState)?.completedAt) ?? info.timestamp;
  const model = info.modelId ? { model: info.modelId, provider: 'vscode' } : {};
  let n = 0;
  let text = '';
  const flushText = () => {
    if (text.trim()) out.push({ n: n++, message: { role: 'assistant', content: [{ type: 'text', text }], timestamp: ts, ...model } });
    text = '';
  };
  const calls = toolCallsOf(req);
  const editedByTools = new Set<string>();
  for (const c of calls.values()) {
    const p = str(obj(c.arguments)?.filePath);
    if (p) editedByTools.add(p);
  }
  for (const raw of arr(req.response)) {
    const part = obj(raw);
    if (!part) continue;
    const kind = str(part.kind);
    if (kind === undefined || kind === 'markdownContent') {
      const value = str(part.value) ?? str(obj(part.content)?.value);
      if (value) text += value;
    } else if (kind === 'inlineReference') {
      const ref = obj(part.inlineReference);
      const name =
        str(part.name) ??
        uriPath(obj(ref?.uri) ?? ref)
          ?.split('/')
          .pop();
      if (name) text += `\`${name}\``;
    } else if (kind === 'thinking') {
      flushText();
      const v = part.value;
      const thought = Array.isArray(v) ? v.filter((x) => typeof x === 'string').join('') : (str(v) ?? '');
      if (thought.trim()) out.push({ n: n++, message: { role: 'assistant', content: [{ type: 'thinking', thinking: thought }], timestamp: ts, ...model } });
    } else if (kind === 'toolInvocationSerialized') {
      flushText();
      const callId = str(part.toolCallId) ?? `call${n}`;
      const known = calls.get(callId);
      const name = known?.name ?? str(part.toolId) ?? 'tool';
      const args = known?.arguments ?? toolSpecificArgs(part);
      const block: ContentBlock = { type: 'toolCall', id: callId, name, arguments: args };
      out.push({ n: n++, message: { role: 'assistant', content: [block], timestamp: ts, ...model } });
      out.push({
        n: n++,
        message: {
          role: 'toolResult',
          toolCallId: callId,
          toolName: name,
          content: toolResultText(part).map((text) => ({ type: 'text' as const, text })),
          isError: toolFailed(part),
          timestamp: ts,
        },
      });
    } else if (kind === 'textEditGroup') {
      const path = uriPath(obj(part.uri));
      if (!path || editedByTools.has(path)) continue;
      flushText();
      const id = `edit${n}`;
      const edits = arr(part.edits).flatMap((e) => arr(e));
      out.push({
        n: n++,
        message: { role: 'assistant', content: [{ type: 'toolCall', id, name: 'edit', arguments: { path, edits: edits.length } }], timestamp: ts, ...model },
      });
      out.push({
        n: n++,
        message: {
          role: 'toolResult',
          toolCallId: id,
          toolName: 'edit',
          content: [{ type: 'text', text: `${edits.length} edit(s) applied by VS Code` }],
          timestamp: ts,
        },
      });
    }
  }
  flushText();
  return out;
}

/** The model's own tool calls of a response (name and arguments), by the id its response parts carry. Copilot's
 *  rounds name a call `<model call id>__vscode-<n>`, the part the bare model id. */
function toolCallsOf(req: JsonRecord): Map<string, { name: string; arguments: unknown }> {
  const out = new Map<string, { name: string; arguments: unknown }>();
  for (const round of arr(obj(obj(req.result)?.metadata)?.toolCallRounds)) {
    for (const c of arr(obj(round)?.toolCalls)) {
      const call = obj(c);
      const id = str(call?.id);
      const name = str(call?.name);
      if (!id || !name) continue;
      let args: unknown = call!.arguments;
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          // kept as the text the model sent
        }
      }
      const entry = { name, arguments: args };
      out.set(id, entry);
      const bare = id.split('__vscode')[0]!;
      if (!out.has(bare)) out.set(bare, entry);
    }
  }
  return out;
}

function toolSpecificArgs(part: JsonRecord): unknown {
  const data = obj(part.toolSpecificData);
  const command = obj(data?.commandLine);
  if (command) return { command: str(command.toolEdited) ?? str(command.original) ?? str(command.forDisplay) ?? '' };
  return {};
}

function messageText(v: unknown): string {
  return str(v) ?? str(obj(v)?.value) ?? '';
}

/** What a tool call did, in text blocks (a terminal's output kept as its own block: it can be long, and is not copied). */
function toolResultText(part: JsonRecord): string[] {
  const data = obj(part.toolSpecificData);
  const output = str(obj(data?.terminalCommandOutput)?.text);
  const exit = num(obj(data?.terminalCommandState)?.exitCode);
  const said = messageText(part.pastTenseMessage) || messageText(part.invocationMessage);
  const parts = [said, output ?? '', exit !== undefined && exit !== 0 ? `exit code ${exit}` : ''].filter((s) => s !== '');
  return parts.length ? parts : [part.isComplete === false ? '(not finished)' : '(done)'];
}

function toolFailed(part: JsonRecord): boolean {
  const exit = num(obj(obj(part.toolSpecificData)?.terminalCommandState)?.exitCode);
  return exit !== undefined && exit !== 0;
}
