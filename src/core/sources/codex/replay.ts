// Rollout lines → one pi-shaped entry tree, replayed forward in one pass the way Codex rebuilds its history
// (interop.md §3.4): the newest `compacted` with `replacement_history` becomes the base (a `compaction` entry followed
// by the kept items), `thread_rolled_back {num_turns}` drops the newest N user turns — they stay in the tree as an
// abandoned branch hanging off the last surviving entry, and what follows continues from there. Items are paired by
// call_id; injected and developer messages are hidden; the event_msg copies of messages are not shown twice;
// apply_patch changes (`patch_apply_end`, 0.169's `item_completed` FileChange) are folded into their call's result.
// Entry ids come from the line numbers (`l<line>`, `l<line>.r<n>` for a replacement item), so they stay the same as
// the file grows. No recursion anywhere: a deep or hostile file costs one loop.
import { parseBoundedJson } from '../../json-depth';
import type { AgentMessage, CompactionEntry, ContentBlock, MessageEntry, SessionEntry } from '../../session/types';
import { classifyItem, messageBlocks, messageText } from './classify';
import { epochMs, obj, payloadOf, str, type CodexRecord } from './lines';

/** One line to replay, with the id prefix of the file it came from (a `rollout_reference` parent has its own). */
export interface ReplayLine {
  rec: CodexRecord;
  line: number;
  /** '' for the session's own file. */
  prefix: string;
  inherited: boolean;
  /** Not a line: remember the replay's position under a name, go back to one, or start a new root. */
  control?: { save?: string; restore?: string; reset?: boolean };
}

export interface CodexPrompt {
  entryId: string;
  turnId?: string;
  text: string;
  line: number;
  prefix: string;
  timestamp: string;
}

export interface ReplayResult {
  entries: SessionEntry[];
  byId: Map<string, SessionEntry>;
  leafId: string | null;
  prompts: CodexPrompt[];
  /** Entry id → the turn it was recorded in. */
  turnOf: Map<string, string>;
  inherited: Set<string>;
  /** Titles named by `thread_name_updated`, newest last. */
  threadNames: string[];
}

interface UserTurn {
  /** The entry the prompt hangs from (where a rollback returns to). */
  anchor: string | null;
}

const MAX_CHANGE_TEXT = 64 * 1024;
/** Codex keeps about 20k tokens of user messages in a legacy compaction; ~4 characters a token. */
const LEGACY_KEPT_CHARS = 80_000;

/** The typed prompts on the path ending at `leafId`, newest that fit in `budget` characters, oldest first (a loop
 *  up the parent links, stopping at the previous compaction or a cycle). */
function recentUserTexts(byId: ReadonlyMap<string, SessionEntry>, leafId: string | null, budget: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let left = budget;
  for (
    let e = leafId === null ? undefined : byId.get(leafId);
    e && !seen.has(e.id) && e.type !== 'compaction';
    e = e.parentId === null ? undefined : byId.get(e.parentId)
  ) {
    seen.add(e.id);
    const m = (e as MessageEntry).message;
    if (e.type !== 'message' || m?.role !== 'user') continue;
    const text = contentTextOf(m.content);
    if (text.length > left) break;
    left -= text.length;
    out.push(text);
  }
  return out.reverse();
}

function contentTextOf(content: AgentMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((b) => (b.type === 'text' ? String((b as { text: unknown }).text) : '')).join('\n');
}

export function replayRollout(lines: readonly ReplayLine[]): ReplayResult {
  const out: ReplayResult = { entries: [], byId: new Map(), leafId: null, prompts: [], turnOf: new Map(), inherited: new Set(), threadNames: [] };
  let cur: string | null = null;
  let turnId: string | undefined;
  const userTurns: UserTurn[] = [];
  const toolNames = new Map<string, string>();
  const resultByCall = new Map<string, MessageEntry>();
  const changesByCall = new Map<string, string>();
  let inherited = false;

  const add = (e: SessionEntry): void => {
    out.entries.push(e);
    out.byId.set(e.id, e);
    if (turnId) out.turnOf.set(e.id, turnId);
    if (inherited) out.inherited.add(e.id);
    cur = e.id;
  };

  const addItem = (item: CodexRecord, id: string, timestamp: string, l: ReplayLine, copy = false): void => {
    const ms = epochMs(timestamp);
    switch (classifyItem(item)) {
      case 'prompt': {
        userTurns.push({ anchor: cur });
        const content = messageBlocks(item.content);
        add({ type: 'message', id, parentId: cur, timestamp, message: { role: 'user', content, timestamp: ms } } as MessageEntry);
        // a compaction's copy of an earlier prompt is history, not a prompt of its own (no turn, no fork point)
        if (!copy) out.prompts.push({ entryId: id, ...(turnId ? { turnId } : {}), text: messageText(item.content), line: l.line, prefix: l.prefix, timestamp });
        return;
      }
      case 'assistantText':
        add({
          type: 'message',
          id,
          parentId: cur,
          timestamp,
          message: { role: 'assistant', content: messageBlocks(item.content), timestamp: ms },
        } as MessageEntry);
        return;
      case 'reasoning': {
        const text = [...arr(item.summary), ...arr(item.content)]
          .map((s) => str(obj(s)?.text) ?? '')
          .filter(Boolean)
          .join('\n\n');
        if (text)
          add({
            type: 'message',
            id,
            parentId: cur,
            timestamp,
            message: { role: 'assistant', content: [{ type: 'thinking', thinking: text }], timestamp: ms },
          } as MessageEntry);
        return;
      }
      case 'toolCall': {
        const callId = str(item.call_id) ?? str(item.id) ?? id;
        const name = toolName(item);
        toolNames.set(callId, name);
        const block: ContentBlock = { type: 'toolCall', id: callId, name, arguments: toolArguments(item) };
        add({ type: 'message', id, parentId: cur, timestamp, message: { role: 'assistant', content: [block], timestamp: ms } } as MessageEntry);
        return;
      }
      case 'toolOutput': {
        const callId = str(item.call_id) ?? '';
        const { text, isError } = outputText(item.output);
        const changes = changesByCall.get(callId);
        const message: AgentMessage = {
          role: 'toolResult',
          toolCallId: callId,
          toolName: toolNames.get(callId) ?? 'tool',
          content: [{ type: 'text', text: changes ? `${text}\n\n${changes}` : text }],
          isError,
          timestamp: ms,
        };
        const e = { type: 'message', id, parentId: cur, timestamp, message } as MessageEntry;
        add(e);
        if (callId) resultByCall.set(callId, e);
        return;
      }
      default:
        return;
    }
  };

  /** apply_patch's changes, shown with the call that made them (the event may come before or after its output). */
  const noteChanges = (callId: string | undefined, changes: unknown): void => {
    const text = describeChanges(changes);
    if (!text) return;
    const key = callId ?? '';
    const done = key ? resultByCall.get(key) : undefined;
    if (done) {
      const block = (done.message.content as ContentBlock[])[0] as { text: string };
      block.text = `${block.text}\n\n${text}`;
    } else if (key) changesByCall.set(key, text);
  };

  const saved = new Map<string, { cur: string | null; turnId: string | undefined; userTurns: UserTurn[] }>();
  for (const l of lines) {
    if (l.control) {
      const c = l.control;
      if (c.save !== undefined) saved.set(c.save, { cur, turnId, userTurns: [...userTurns] });
      const back = c.restore !== undefined ? saved.get(c.restore) : undefined;
      if (back) {
        cur = back.cur;
        turnId = back.turnId;
        userTurns.splice(0, userTurns.length, ...back.userTurns);
      }
      if (c.reset) {
        cur = null;
        turnId = undefined;
        userTurns.length = 0;
      }
      continue;
    }
    const rec = l.rec;
    const p = payloadOf(rec);
    const timestamp = str(rec.timestamp) ?? '';
    const id = `${l.prefix}l${l.line}`;
    inherited = l.inherited;
    const itemTurn = rec.type === 'response_item' ? str(obj(p.internal_chat_message_metadata_passthrough)?.turn_id) : undefined;
    if (itemTurn) turnId = itemTurn;
    switch (rec.type) {
      case 'turn_context': {
        const t = str(p.turn_id);
        if (t) turnId = t;
        break;
      }
      case 'response_item':
        addItem(p, id, timestamp, l);
        break;
      case 'compacted': {
        const summary = str(p.message) ?? '';
        const e: CompactionEntry = { type: 'compaction', id, parentId: cur, timestamp, summary };
        add(e);
        const replacement = p.replacement_history;
        if (!Array.isArray(replacement)) {
          // a legacy compaction (summary only): Codex rebuilds the history from the most recent user messages
          // (about 20k tokens of them) followed by the summary, so the same prompts are kept here after it
          const kept = recentUserTexts(out.byId, e.parentId, LEGACY_KEPT_CHARS);
          userTurns.length = 0;
          kept.forEach((text, i) => addItem({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }, `${id}.u${i}`, timestamp, l, true));
        } else {
          // the history Codex continues from: its own items, after the summary (a copy of the summary is not repeated)
          userTurns.length = 0;
          replacement.forEach((r, i) => {
            const item = obj(r);
            if (!item) return;
            if (item.type === 'message' && str(item.role) === 'user' && messageText(item.content).trim() === summary.trim() && summary.trim()) return;
            addItem(item, `${id}.r${i}`, timestamp, l, true);
          });
        }
        break;
      }
      case 'event_msg': {
        switch (p.type) {
          case 'task_started':
          case 'turn_started': {
            const t = str(p.turn_id);
            if (t) turnId = t;
            break;
          }
          case 'thread_rolled_back': {
            const n = typeof p.num_turns === 'number' && p.num_turns > 0 ? Math.floor(p.num_turns) : 0;
            if (n > 0 && userTurns.length > 0) {
              const dropped = userTurns.splice(Math.max(0, userTurns.length - n), n);
              cur = dropped[0]!.anchor;
            }
            break;
          }
          case 'patch_apply_end':
            noteChanges(str(p.call_id), p.changes);
            break;
          case 'item_completed': {
            const item = obj(p.item);
            if (item?.type === 'FileChange') noteChanges(str(item.id), item.changes);
            break;
          }
          case 'thread_name_updated': {
            const name = str(p.thread_name) ?? str(p.name);
            if (name?.trim()) out.threadNames.push(name.trim());
            break;
          }
        }
        break;
      }
    }
  }
  out.leafId = cur;
  return out;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function toolName(item: CodexRecord): string {
  switch (item.type) {
    case 'local_shell_call':
      return 'local_shell';
    case 'web_search_call':
      return 'web_search';
    case 'image_generation_call':
      return 'image_generation';
    default:
      return str(item.name) ?? String(item.type);
  }
}

function toolArguments(item: CodexRecord): unknown {
  switch (item.type) {
    case 'function_call': {
      const a = item.arguments;
      if (typeof a !== 'string') return a ?? {};
      try {
        return parseBoundedJson(a);
      } catch {
        return { raw: a };
      }
    }
    case 'custom_tool_call':
      return { input: str(item.input) ?? '' };
    case 'local_shell_call':
      return obj(item.action) ?? {};
    default:
      return obj(item.action) ?? obj(item.arguments) ?? {};
  }
}

/** A tool output: a string, `{content, success}` (older), or a list of content items (no recursion: a few levels). */
function outputText(output: unknown): { text: string; isError: boolean } {
  let v = output;
  let isError = false;
  for (let depth = 0; depth < 4; depth++) {
    if (typeof v === 'string') return { text: v, isError };
    if (Array.isArray(v)) return { text: messageText(v), isError };
    const o = obj(v);
    if (!o) break;
    if (o.success === false) isError = true;
    v = o.content ?? o.body;
  }
  return { text: '', isError };
}

/** `changes{path: add{content} | delete{content} | update{unified_diff, move_path}}` (and 0.169's `{type, …}`). */
export function describeChanges(changes: unknown): string {
  const c = obj(changes);
  if (!c) return '';
  const lines: string[] = [];
  for (const [path, raw] of Object.entries(c)) {
    const v = obj(raw);
    if (!v) continue;
    const kind = str(v.type) ?? Object.keys(v)[0];
    const body = obj(v[kind ?? '']) ?? v;
    const move = str(body.move_path);
    switch (kind) {
      case 'add':
        lines.push(`A ${path}`);
        break;
      case 'delete':
        lines.push(`D ${path}`);
        break;
      default: {
        lines.push(move ? `R ${path} → ${move}` : `M ${path}`);
        const diff = str(body.unified_diff);
        if (diff) lines.push(diff.trimEnd());
      }
    }
  }
  if (!lines.length) return '';
  const text = `Files changed:\n${lines.join('\n')}`;
  return text.length > MAX_CHANGE_TEXT ? `${text.slice(0, MAX_CHANGE_TEXT)}\n…` : text;
}
