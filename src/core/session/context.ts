// buildSessionContext: what is sent to the model for one leaf of the session tree (docs/ARCHITECTURE.md, session files).
import { createBranchSummaryMessage, createCompactionSummaryMessage, createCustomMessage } from './messages';
import { entryAtFileIndex } from './migrations';
import type {
  AgentMessage,
  BranchSummaryEntry,
  CompactionEntry,
  CustomMessageEntry,
  MessageEntry,
  ModeChangeEntry,
  ModelChangeEntry,
  SessionContext,
  SessionEntry,
  TtsrInjectionEntry,
} from './types';

export function indexById(entries: readonly SessionEntry[]): Map<string, SessionEntry> {
  const byId = new Map<string, SessionEntry>();
  for (const e of entries) byId.set(e.id, e);
  return byId;
}

/** Root → leaf path. Stops at a missing parent or a cycle (a hand-edited file), so it always terminates. */
export function pathToLeaf(leaf: SessionEntry, byId: ReadonlyMap<string, SessionEntry>): SessionEntry[] {
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  for (let e: SessionEntry | undefined = leaf; e && !seen.has(e.id); e = e.parentId == null ? undefined : byId.get(e.parentId)) {
    seen.add(e.id);
    path.push(e);
  }
  return path.reverse();
}

/** The model named by a model_change entry; v1 entries carry provider + modelId instead of model. */
export function modelOf(e: ModelChangeEntry): string | undefined {
  if (typeof e.model === 'string') return e.model;
  if (typeof e.provider === 'string' && typeof e.modelId === 'string') return `${e.provider}/${e.modelId}`;
  return undefined;
}

/** The id of the first entry a compaction keeps: firstKeptEntryId, or a legacy index (header = 0) resolved in file order. */
export function firstKeptIdOf(c: CompactionEntry, entries: readonly SessionEntry[]): string | undefined {
  if (typeof c.firstKeptEntryId === 'string') return c.firstKeptEntryId;
  if (typeof c.firstKeptEntryIndex === 'number') return entryAtFileIndex(entries, c.firstKeptEntryIndex)?.id;
  return undefined;
}

function toMessage(e: SessionEntry): AgentMessage | undefined {
  switch (e.type) {
    case 'message':
      return (e as MessageEntry).message;
    case 'custom_message': {
      const c = e as CustomMessageEntry;
      return createCustomMessage(c.customType, c.content, c.display !== false, c.details, c.timestamp);
    }
    case 'branch_summary': {
      const b = e as BranchSummaryEntry;
      return typeof b.summary === 'string' ? createBranchSummaryMessage(b.summary, b.fromId, b.timestamp) : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * @param leafId null → empty context; undefined → the last entry; an unknown id also falls back to the last entry.
 */
export function buildSessionContext(entries: readonly SessionEntry[], leafId?: string | null, byId?: ReadonlyMap<string, SessionEntry>): SessionContext {
  const ctx: SessionContext = { messages: [], thinkingLevel: 'off', models: {}, injectedTtsrRules: [], mode: 'none' };
  if (leafId === null || entries.length === 0) return ctx;
  const index = byId ?? indexById(entries);
  const leaf = (leafId !== undefined ? index.get(leafId) : undefined) ?? entries[entries.length - 1]!;
  const path = pathToLeaf(leaf, index);

  let explicitDefaultModel = false;
  let lastAssistantModel: string | undefined;
  const rules = new Set<string>();
  let compactionAt = -1;
  for (let i = 0; i < path.length; i++) {
    const e = path[i]!;
    switch (e.type) {
      case 'thinking_level_change':
        if (typeof e.thinkingLevel === 'string') ctx.thinkingLevel = e.thinkingLevel;
        break;
      case 'model_change': {
        const model = modelOf(e as ModelChangeEntry);
        if (model !== undefined) {
          const role = typeof e.role === 'string' ? e.role : 'default';
          ctx.models[role] = model;
          if (role === 'default') explicitDefaultModel = true;
        }
        break;
      }
      case 'ttsr_injection':
        for (const r of (e as TtsrInjectionEntry).injectedRules ?? []) rules.add(r);
        break;
      case 'mode_change': {
        const m = e as ModeChangeEntry;
        ctx.mode = typeof m.mode === 'string' ? m.mode : 'none';
        ctx.modeData = m.data;
        break;
      }
      case 'message': {
        const msg = (e as MessageEntry).message;
        if (msg && msg.role === 'assistant' && typeof msg.provider === 'string' && typeof msg.model === 'string') {
          lastAssistantModel = `${msg.provider}/${msg.model}`;
        }
        break;
      }
      case 'compaction':
        compactionAt = i;
        break;
    }
  }
  if (!explicitDefaultModel && lastAssistantModel !== undefined) ctx.models.default = lastAssistantModel;
  ctx.injectedTtsrRules = [...rules];
  if (ctx.modeData === undefined) delete ctx.modeData;

  const push = (e: SessionEntry): void => {
    const m = toMessage(e);
    if (m) ctx.messages.push(m);
  };
  if (compactionAt >= 0) {
    const c = path[compactionAt] as CompactionEntry;
    ctx.messages.push(createCompactionSummaryMessage(c.summary, c.tokensBefore, c.timestamp));
    const firstKept = firstKeptIdOf(c, entries);
    let keeping = false;
    for (let i = 0; i < compactionAt; i++) {
      if (path[i]!.id === firstKept) keeping = true;
      if (keeping) push(path[i]!);
    }
    for (let i = compactionAt + 1; i < path.length; i++) push(path[i]!);
  } else {
    for (const e of path) push(e);
  }
  return ctx;
}
