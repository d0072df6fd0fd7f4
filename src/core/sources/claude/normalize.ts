// Claude Code lines → one pi-shaped entry tree. One pass in file order: a parent always comes before its children in
// the file, so each line's nearest kept ancestor is already known when the line is reached (no walk, no recursion),
// and a parent that is missing, later in the file or the line itself counts as absent — which is also the cycle guard.
import type { AgentMessage, CompactionEntry, ContentBlock, MessageEntry, SessionEntry } from '../../session/types';
import { classifyLine, contentString, promptContent } from './classify';
import { applyAssistantLine, assistantBlocks, assistantMessage, toolResultContent } from './convert';
import { epochMs, obj, str, type ClaudeRecord, type RawLine } from './lines';

export interface UserPrompt {
  entryId: string;
  promptId?: string;
  text: string;
  /** Where the prompt's line starts in the file. */
  byteOffset: number;
  timestamp: string;
}

export interface ToolCallInfo {
  name: string;
  input: unknown;
  entryId: string;
}

export interface NormalizedTree {
  /** In file order; a parent always comes before its children. */
  entries: SessionEntry[];
  byId: Map<string, SessionEntry>;
  /** A line's uuid → the entry it became (every line of an assistant message maps to that message's entry). */
  alias: Map<string, string>;
  leafId: string | null;
  prompts: UserPrompt[];
  promptIds: Map<string, string>;
  toolCalls: Map<string, ToolCallInfo>;
  /** Tool call id → the subagent id its result names (toolUseResult.agentId). */
  agentOfToolCall: Map<string, string>;
  /** Entries that start a typed prompt (real branch points are told apart by them). */
  promptEntries: Set<string>;
  /** Prompt entry id → its 1-based line number. */
  promptLines: Map<string, number>;
}

/** The line's parent in the raw graph: a compact boundary is a new root that continues from its logical parent. */
export function rawParentOf(rec: ClaudeRecord): string | null {
  const p = str(rec.parentUuid);
  if (p) return p;
  return str(rec.logicalParentUuid) ?? null;
}

export function normalizeLines(lines: readonly RawLine[], opts: { includeSidechains: boolean }): NormalizedTree {
  const b = new TreeBuilder(opts);
  for (const l of lines) b.add(l);
  return b.finish();
}

/** Takes lines one at a time in file order (the reader feeds it while parsing), then gives the tree. */
export class TreeBuilder {
  private readonly out: NormalizedTree = {
    entries: [],
    byId: new Map(),
    alias: new Map(),
    leafId: null,
    prompts: [],
    promptIds: new Map(),
    toolCalls: new Map(),
    agentOfToolCall: new Map(),
    promptEntries: new Set(),
    promptLines: new Map(),
  };
  // uuid → the id of the entry its children hang from (null: a root); presence means "seen earlier in the file"
  private readonly tailOf = new Map<string, string | null>();
  // assistant entry id → its API message id, for merging the per-block lines of one response
  private readonly groupMsgId = new Map<string, string>();
  // compact boundary uuid → tokens before compaction (the summary line that follows does not repeat them)
  private readonly preTokens = new Map<string, number>();
  private leafUuid: string | undefined;
  private readonly promptIdLines: { uuid: string; promptId: string; line: number; isPrompt: boolean }[] = [];

  constructor(private readonly opts: { includeSidechains: boolean }) {}

  private addEntry(e: SessionEntry): void {
    this.out.entries.push(e);
    this.out.byId.set(e.id, e);
  }

  /** Whether the line took a place in the graph (it has a uuid not seen before and is not a skipped sidechain). */
  add(raw: RawLine): boolean {
    const { out, tailOf, groupMsgId, preTokens } = this;
    const rec = raw.rec;
    const uuid = str(rec.uuid);
    if (!uuid || tailOf.has(uuid)) return false; // no place in the graph, or a duplicate (first copy wins)
    if (!this.opts.includeSidechains && rec.isSidechain === true) return false;
    const parentUuid = rawParentOf(rec);
    const parent = parentUuid !== null && parentUuid !== uuid ? (tailOf.get(parentUuid) ?? null) : null;
    const timestamp = str(rec.timestamp) ?? '';
    const ms = epochMs(timestamp);
    const kind = classifyLine(rec);
    const promptId = str(rec.promptId);

    switch (kind) {
      case 'hidden': {
        const tokens = obj(rec.compactMetadata)?.preTokens;
        if (typeof tokens === 'number') preTokens.set(uuid, tokens);
        tailOf.set(uuid, parent);
        return true;
      }
      case 'prompt': {
        const content = promptContent(rec)!;
        const message: AgentMessage = { role: 'user', content, timestamp: ms };
        this.addEntry({ type: 'message', id: uuid, parentId: parent, timestamp, message } as MessageEntry);
        tailOf.set(uuid, uuid);
        out.alias.set(uuid, uuid);
        out.promptEntries.add(uuid);
        out.promptLines.set(uuid, raw.line);
        out.prompts.push({ entryId: uuid, ...(promptId ? { promptId } : {}), text: contentString(content), byteOffset: raw.byteStart, timestamp });
        break;
      }
      case 'compactSummary': {
        const tokens = (parentUuid !== null ? preTokens.get(parentUuid) : undefined) ?? obj(rec.compactMetadata)?.preTokens;
        const content = obj(rec.message)?.content;
        const summary = typeof content === 'string' ? content : contentString(toolResultContent(content));
        const e: CompactionEntry = { type: 'compaction', id: uuid, parentId: parent, timestamp, summary };
        if (typeof tokens === 'number') e.tokensBefore = tokens;
        this.addEntry(e);
        tailOf.set(uuid, uuid);
        out.alias.set(uuid, uuid);
        break;
      }
      case 'toolResult': {
        // one entry per tool_result block, chained, so each result is its own transcript row
        const blocks = (obj(rec.message)!.content as unknown[]).map(obj).filter((b): b is ClaudeRecord => b?.type === 'tool_result');
        const agentId = str(obj(rec.toolUseResult)?.agentId);
        let prev = parent;
        blocks.forEach((b, i) => {
          const id = i === 0 ? uuid : `${uuid}#${i}`;
          const toolCallId = str(b.tool_use_id) ?? '';
          const message: AgentMessage = {
            role: 'toolResult',
            toolCallId,
            toolName: out.toolCalls.get(toolCallId)?.name ?? 'tool',
            content: toolResultContent(b.content),
            isError: b.is_error === true,
            timestamp: ms,
          };
          this.addEntry({ type: 'message', id, parentId: prev, timestamp, message } as MessageEntry);
          if (agentId && toolCallId) out.agentOfToolCall.set(toolCallId, agentId);
          prev = id;
        });
        tailOf.set(uuid, prev);
        out.alias.set(uuid, uuid);
        break;
      }
      case 'assistant': {
        const msgId = str(obj(rec.message)?.id);
        let entryId: string;
        const parentEntry = parent !== null ? out.byId.get(parent) : undefined;
        if (msgId && parent !== null && groupMsgId.get(parent) === msgId && parentEntry) {
          // the next content block of the same API response: one message, not one per block
          const msg = (parentEntry as MessageEntry).message;
          (msg.content as ContentBlock[]).push(...assistantBlocks(obj(rec.message)?.content));
          applyAssistantLine(msg, rec);
          entryId = parent;
        } else {
          entryId = uuid;
          this.addEntry({ type: 'message', id: uuid, parentId: parent, timestamp, message: assistantMessage(rec, ms) } as MessageEntry);
          if (msgId) groupMsgId.set(uuid, msgId);
        }
        for (const b of (obj(rec.message)?.content as unknown[] | undefined) ?? []) {
          const block = obj(b);
          if (block && (block.type === 'tool_use' || block.type === 'server_tool_use') && typeof block.id === 'string') {
            out.toolCalls.set(block.id, { name: str(block.name) ?? 'tool', input: block.input, entryId });
          }
        }
        tailOf.set(uuid, entryId);
        out.alias.set(uuid, entryId);
        break;
      }
    }
    if (promptId) this.promptIdLines.push({ uuid, promptId, line: raw.line, isPrompt: kind === 'prompt' });
    this.leafUuid = uuid;
    return true;
  }

  /** Whether a line with this uuid is in the graph (kept or hidden). */
  has(uuid: string): boolean {
    return this.tailOf.has(uuid);
  }

  finish(): NormalizedTree {
    if (this.leafUuid !== undefined) this.out.leafId = this.tailOf.get(this.leafUuid) ?? null;
    // --fork-session stamps every copied user line with the fork's new promptId, so several prompts share it; it
    // belongs to the last of them, and to the lines after that one
    const ownerLine = new Map<string, number>();
    for (const p of this.promptIdLines) if (p.isPrompt) ownerLine.set(p.promptId, p.line);
    for (const p of this.promptIdLines) if (p.line >= (ownerLine.get(p.promptId) ?? 0)) this.out.promptIds.set(p.uuid, p.promptId);
    for (const p of this.out.prompts) {
      const id = this.out.promptIds.get(p.entryId);
      if (id) p.promptId = id;
      else delete p.promptId;
    }
    return this.out;
  }
}
