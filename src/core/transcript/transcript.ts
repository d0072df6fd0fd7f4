// Turns a session path (root → leaf) into the transcript rows the webview shows. One row per entry, so a row's
// entry id is unique and is the anchor the UI hands back ("Rewind to here", fork, label).
import type { MessageKind, TranscriptItem } from '../../shared/view-models';
import type { AgentMessage, ContentBlock, SessionEntry } from '../session/types';
import { fence, toolCallMarkdown } from './tool-views';

export interface TranscriptContext {
  /** Other branches that leave the path at an entry (keyed by that entry's id). */
  otherBranchesAt?: ReadonlyMap<string, { name: string; headEntryId: string }[]>;
  /** File checkpoints by anchor (user message) id: how many files each holds. */
  fileCheckpoints?: ReadonlyMap<string, number>;
  /** Whether file checkpoints are looked up at all (false: fileCheckpoint is left out of every row). */
  fileCheckpointsKnown?: boolean;
  labelOf?: (entryId: string) => string | undefined;
  /** The session's folder: paths inside it are shown relative to it. */
  cwd?: string;
}

const PREVIEW_LENGTH = 80;

/** The readable text of a message's content; images and other blocks become short placeholders. */
export function contentText(content: string | ContentBlock[] | undefined, opts: { toolCalls?: boolean; cwd?: string } = {}): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const block of content) {
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'image') parts.push('[image]');
    else if (block.type === 'toolCall' && opts.toolCalls)
      parts.push(toolCallMarkdown(typeof block.name === 'string' ? block.name : 'tool', block.arguments, true, opts.cwd));
  }
  return parts.join('\n\n');
}

/** One line for trees and lists. */
export function oneLine(text: string, max = PREVIEW_LENGTH): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Whether a user message can name its session: not a slash command (`/model x`) nor an injected block (`<…>`). */
export function isTitleWorthyPrompt(entry: SessionEntry): boolean {
  if (!isUserMessage(entry)) return false;
  const text = contentText((entry.message as AgentMessage).content).trim();
  return text !== '' && !/^\/[\w:-]+(\s|$)/.test(text) && !/^<[\w-]+[\s>]/.test(text);
}

export function isUserMessage(entry: SessionEntry | undefined): boolean {
  return entry?.type === 'message' && (entry.message as AgentMessage | undefined)?.role === 'user';
}

/** Markdown as plain words for one-line previews (trees, quick picks, lists): no fences, backticks or emphasis. */
export function plainText(markdown: string): string {
  return markdown
    .split('\n')
    .filter((line) => !/^\s*(`{3,}|~{3,})/.test(line))
    .join('\n')
    .replace(/`+([^`\n]*)`+/g, '$1')
    .replace(/\*\*([^*\n]+)\*\*/g, '$1')
    .replace(/(^|\s)\*([^*\n]+)\*(?=\s|$)/g, '$1$2')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '');
}

/** A one-line preview of any entry (the tree's branch heads, checkpoints, the preview's message list). */
export function previewOf(entry: SessionEntry): string {
  const item = toTranscriptItem(entry, {});
  if (item) {
    const words = oneLine(item.preformatted ? item.markdown : plainText(item.markdown));
    const text = item.kind === 'toolCall' && item.title ? oneLine(`${item.title}: ${words}`) : words;
    if (text) return text;
    if (item.title) return item.title;
    return `(${item.kind})`;
  }
  return `(${entry.type})`;
}

export function kindOf(entry: SessionEntry): MessageKind {
  return toTranscriptItem(entry, {})?.kind ?? 'other';
}

/** The row for one entry, or undefined for entries that are not part of the chat (model changes, records, labels). */
export function toTranscriptItem(entry: SessionEntry, ctx: TranscriptContext): TranscriptItem | undefined {
  const base = { entryId: entry.id, timestamp: entry.timestamp, label: ctx.labelOf?.(entry.id) };
  const others = ctx.otherBranchesAt?.get(entry.id);
  const withBranches = (item: TranscriptItem): TranscriptItem => {
    const out: TranscriptItem = { ...item };
    if (out.label === undefined) delete out.label;
    if (others && others.length > 0) out.otherBranches = others;
    return out;
  };

  switch (entry.type) {
    case 'message': {
      const message = entry.message as AgentMessage | undefined;
      if (!message || typeof message !== 'object') return undefined;
      return withBranches(messageItem(message, base, ctx));
    }
    case 'branch_summary':
      return withBranches({ ...base, kind: 'branchSummary', title: 'Branch summary', markdown: String(entry.summary ?? '') });
    case 'compaction':
      return withBranches({ ...base, kind: 'compaction', title: 'Compaction', markdown: String(entry.summary ?? '') });
    case 'custom_message': {
      // Hidden messages (e.g. the rewind report) feed the model, not the reader.
      if (entry.display === false) return undefined;
      return withBranches({
        ...base,
        kind: 'custom',
        title: String(entry.customType ?? 'custom'),
        markdown: contentText(entry.content as string | ContentBlock[] | undefined),
      });
    }
    default:
      return undefined;
  }
}

function messageItem(message: AgentMessage, base: Pick<TranscriptItem, 'entryId' | 'timestamp' | 'label'>, ctx: TranscriptContext): TranscriptItem {
  switch (message.role) {
    case 'user': {
      // What the user typed or pasted is shown as they wrote it (line breaks, indentation), not as markdown.
      const item: TranscriptItem = { ...base, kind: 'user', markdown: contentText(message.content), preformatted: true };
      if (ctx.fileCheckpointsKnown) {
        const files = ctx.fileCheckpoints?.get(base.entryId);
        item.fileCheckpoint = files === undefined ? null : { files };
      }
      return item;
    }
    case 'assistant': {
      const blocks = Array.isArray(message.content) ? message.content : [];
      const calls = blocks.filter((b) => b.type === 'toolCall');
      const names = calls.map((b) => String(b.name ?? 'tool'));
      const text = contentText(message.content);
      const kind: MessageKind = text.trim() === '' && calls.length > 0 ? 'toolCall' : 'assistant';
      // A row of tool calls only is titled by their names, so each call's body need not repeat its name.
      const markdown =
        kind === 'toolCall'
          ? calls.map((b) => toolCallMarkdown(String(b.name ?? 'tool'), b.arguments, calls.length > 1, ctx.cwd)).join('\n\n')
          : contentText(message.content, { toolCalls: true, cwd: ctx.cwd });
      const title = kind === 'toolCall' ? [...new Set(names)].join(', ') : typeof message.model === 'string' ? message.model : undefined;
      const stop = message.stopReason;
      const errorText = typeof message.errorMessage === 'string' && message.errorMessage.trim() ? message.errorMessage.trim() : undefined;
      const notice = stop === 'aborted' ? 'aborted' : stop === 'error' ? (errorText ? `error: ${oneLine(errorText, 120)}` : 'error') : undefined;
      return {
        ...base,
        kind,
        markdown: markdown || (notice ? `*(${notice === 'aborted' ? 'stopped before it said anything' : 'no reply'})*` : ''),
        ...(title ? { title } : {}),
        ...(stop === 'error' ? { isError: true } : {}),
        ...(notice ? { notice } : {}),
      };
    }
    case 'toolResult':
      return {
        ...base,
        kind: 'toolResult',
        title: typeof message.toolName === 'string' ? message.toolName : 'tool result',
        markdown: fence(contentText(message.content)),
        ...(message.isError === true ? { isError: true } : {}),
      };
    case 'bashExecution': {
      const command = String(message.command ?? '');
      const output = String(message.output ?? '');
      const exitCode = typeof message.exitCode === 'number' ? message.exitCode : undefined;
      return {
        ...base,
        kind: 'bash',
        title: oneLine(`$ ${command}`),
        markdown: fence(`$ ${command}\n${output}`, 'sh'),
        ...(exitCode !== undefined && exitCode !== 0 ? { isError: true } : {}),
      };
    }
    case 'branchSummary':
      return { ...base, kind: 'branchSummary', title: 'Branch summary', markdown: String(message.summary ?? contentText(message.content)) };
    case 'compactionSummary':
      return { ...base, kind: 'compaction', title: 'Compaction', markdown: String(message.summary ?? contentText(message.content)) };
    case 'custom':
    case 'hookMessage':
      return { ...base, kind: 'custom', title: String(message.customType ?? 'custom'), markdown: contentText(message.content) };
    default:
      return { ...base, kind: 'other', title: message.role, markdown: contentText(message.content) };
  }
}

export function buildTranscriptItems(path: readonly SessionEntry[], ctx: TranscriptContext): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  // Tool calls that got a result somewhere on the path; one that never did, with messages after it, never ran.
  const answered = new Set<string>();
  for (const entry of path) {
    const m = entry.type === 'message' ? (entry.message as AgentMessage | undefined) : undefined;
    if (m?.role === 'toolResult' && typeof m.toolCallId === 'string') answered.add(m.toolCallId);
  }
  path.forEach((entry, i) => {
    const item = toTranscriptItem(entry, ctx);
    if (!item) return;
    const m = entry.type === 'message' ? (entry.message as AgentMessage | undefined) : undefined;
    if (m?.role === 'assistant' && Array.isArray(m.content) && i < path.length - 1 && !item.notice) {
      const unanswered = m.content.filter((b) => b.type === 'toolCall' && typeof b.id === 'string' && !answered.has(b.id));
      if (unanswered.length) item.notice = unanswered.length === 1 ? 'the tool call never ran' : `${unanswered.length} tool calls never ran`;
    }
    items.push(item);
  });
  return items;
}
