// An OpenCode session's rows → the pi-shaped entry tree every view reads (session-view.ts). A user message is one
// entry whose id is OpenCode's message id (the anchor its plugin snapshots under, and where OpenCode forks); an
// assistant message becomes one entry per shown part (text, reasoning, a tool call followed by its result), with the
// files a step changed (its `patch` part) added to that step's last tool result. Messages are in id order, which is
// OpenCode's creation order, each the child of the one before.
//
// `session.revert` ({messageID, partID?}) is OpenCode's pending undo: that message (from that part, when one is named)
// and everything after it are hidden until the next prompt deletes them. Here they stay in the tree as an abandoned
// branch hanging off the last entry before them, which is the active leaf. Ids come from OpenCode's own ids, so they
// are the same at every read. No recursion: one pass over the rows.
import type { AgentMessage, ContentBlock, MessageEntry, SessionEntry } from '../../session/types';
import { num, obj, str, type Json, type OcPart, type OcSessionRows } from './rows';

export interface OcPrompt {
  /** The user message's id: its entry id. */
  entryId: string;
  text: string;
  timestamp: string;
  /** Hidden by session.revert. */
  reverted: boolean;
}

export interface OcTree {
  entries: SessionEntry[];
  byId: Map<string, SessionEntry>;
  leafId: string | null;
  prompts: OcPrompt[];
  /** Entries hidden by session.revert. */
  reverted: Set<string>;
  /** The model of the newest assistant message (`provider/model`). */
  model?: string;
}

const MAX_TEXT = 512 * 1024;

const iso = (ms: number | undefined): string => new Date(ms !== undefined && ms > 0 && ms < 8.64e15 ? ms : 0).toISOString();
const capped = (s: string): string => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}\n…` : s);

/** The text a user message's parts say: typed text (synthetic text OpenCode adds, e.g. a file's content, is left out),
 *  and attached files by name. */
function userText(parts: readonly OcPart[]): string {
  const out: string[] = [];
  for (const p of parts) {
    const d = p.data;
    if (d.type === 'text' && d.synthetic !== true && typeof d.text === 'string') out.push(d.text);
    else if (d.type === 'file') out.push(`[file: ${str(d.filename) ?? str(d.url) ?? 'attachment'}]`);
  }
  return out.join('\n');
}

function toolOutput(state: Json | undefined): { text: string; isError: boolean } {
  switch (state?.status) {
    case 'completed':
      return { text: typeof state.output === 'string' ? state.output : JSON.stringify(state.output ?? ''), isError: false };
    case 'error':
      return { text: str(state.error) ?? 'error', isError: true };
    default:
      return { text: `(${str(state?.status) ?? 'unknown'})`, isError: false };
  }
}

function workspaceRelative(path: string, root: string | undefined): string {
  return root && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

function assistantEntry(
  id: string,
  parentId: string | null,
  timestamp: string,
  block: ContentBlock,
  created: number,
  provider: string | undefined,
  model: string | undefined,
): MessageEntry {
  const message: AgentMessage = { role: 'assistant', content: [block], timestamp: created };
  if (provider) message.provider = provider;
  if (model) message.model = model;
  return { type: 'message', id, parentId, timestamp, message } as MessageEntry;
}

export function convertSession(rows: OcSessionRows): OcTree {
  const out: OcTree = { entries: [], byId: new Map(), leafId: null, prompts: [], reverted: new Set() };
  const revert = rows.info.revert;
  let cur: string | null = null;
  let hidden = false;
  let leaf: string | null = null;

  const add = (e: SessionEntry): void => {
    out.entries.push(e);
    out.byId.set(e.id, e);
    if (hidden) out.reverted.add(e.id);
    else leaf = e.id;
    cur = e.id;
  };

  for (const m of rows.messages) {
    if (revert && (m.id > revert.messageID || (m.id === revert.messageID && !revert.partID))) hidden = true;
    const parts = rows.parts.get(m.id) ?? [];
    const created = num(obj(m.data.time)?.created) ?? m.createdMs;
    const timestamp = iso(created);
    if (m.data.role === 'user') {
      const text = capped(userText(parts));
      add({
        type: 'message',
        id: m.id,
        parentId: cur,
        timestamp,
        message: { role: 'user', content: [{ type: 'text', text }], timestamp: created },
      } as MessageEntry);
      out.prompts.push({ entryId: m.id, text, timestamp, reverted: hidden });
      continue;
    }
    if (m.data.role !== 'assistant') continue;
    const provider = str(m.data.providerID);
    const model = str(m.data.modelID);
    if (model) out.model = provider ? `${provider}/${model}` : model;
    const root = str(obj(m.data.path)?.root);
    let lastResult: MessageEntry | undefined;
    for (const p of parts) {
      if (revert?.partID && m.id === revert.messageID && p.id >= revert.partID) hidden = true;
      const d = p.data;
      const start = num(obj(d.time)?.start);
      // most parts carry no time of their own: their message's timestamp, not one more Date per part
      const at = start === undefined ? timestamp : iso(start);
      switch (d.type) {
        case 'text':
          if (typeof d.text === 'string' && d.text && d.synthetic !== true)
            add(assistantEntry(p.id, cur, at, { type: 'text', text: capped(d.text) }, created, provider, model));
          break;
        case 'reasoning':
          if (typeof d.text === 'string' && d.text)
            add(assistantEntry(p.id, cur, at, { type: 'thinking', thinking: capped(d.text) }, created, provider, model));
          break;
        case 'tool': {
          const state = obj(d.state);
          const callId = str(d.callID) ?? p.id;
          const name = str(d.tool) ?? 'tool';
          add(assistantEntry(p.id, cur, at, { type: 'toolCall', id: callId, name, arguments: obj(state?.input) ?? {} }, created, provider, model));
          const { text, isError } = toolOutput(state);
          const message: AgentMessage = {
            role: 'toolResult',
            toolCallId: callId,
            toolName: name,
            content: [{ type: 'text', text: capped(text) }],
            isError,
            timestamp: created,
          };
          lastResult = { type: 'message', id: `${p.id}.result`, parentId: cur, timestamp: at, message } as MessageEntry;
          add(lastResult);
          break;
        }
        case 'patch': {
          const files = (Array.isArray(d.files) ? d.files : []).filter((f): f is string => typeof f === 'string').map((f) => workspaceRelative(f, root));
          if (!files.length) break;
          const note = `Files changed:\n${files.join('\n')}`;
          const block = (lastResult?.message.content as ContentBlock[] | undefined)?.[0] as { text: string } | undefined;
          if (block) block.text = `${block.text}\n\n${note}`;
          else add(assistantEntry(p.id, cur, at, { type: 'text', text: note }, created, provider, model));
          break;
        }
        default:
          break;
      }
    }
  }
  out.leafId = leaf;
  return out;
}
