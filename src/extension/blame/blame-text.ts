// What agent blame says about a line (issue 27, item 5), without `vscode`: the status bar item's text and tooltip and
// the hover, from the line's owner (core/engine/line-blame.ts). "Claude Code · “fix the parser” · 3 min ago", or
// "you", with links to open the prompt in its transcript and the file's history.
import type { LineOwner } from '../../core/engine';
import { agentName } from '../../core/sources';
import { whenText } from '../commands/file-history-items';

/** The message a line's prompt is, when one session's prompt wrote it and its user message is known. */
export interface LinePrompt {
  sessionRef: string;
  entryId: string;
}

export interface LineBlameText {
  /** The status bar item's text (with a codicon). */
  status: string;
  /** One line: who and which prompt. */
  summary: string;
  /** Set when the line's prompt can be opened. */
  prompt?: LinePrompt;
  /** Whether an agent's turn wrote the line (the hover shows only then: the user's own lines need no note). */
  byAgent: boolean;
}

const STATUS_PROMPT_CHARS = 40;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function lineBlameText(owner: LineOwner, now: Date): LineBlameText {
  if (owner.by === 'unsaved') return { status: '$(edit) You (unsaved)', summary: 'You: an edit not saved yet', byAgent: false };
  if (owner.by === 'user') return { status: '$(account) You', summary: 'You (outside any agent’s turn)', byAgent: false };
  if (owner.by === 'several') {
    const n = owner.sessions.length;
    return { status: `$(organization) ${n} sessions at once`, summary: `${n} agent sessions working at once`, byAgent: true };
  }
  const agent = owner.session ? agentName(owner.session.source) : owner.agent ? agentName(owner.agent) : 'An agent';
  const text = owner.promptInfo?.text;
  const when = owner.promptInfo?.sentAt ? whenText(owner.promptInfo.sentAt, now) : undefined;
  const prompt = owner.sessionRef && owner.messageId ? { sessionRef: owner.sessionRef, entryId: owner.messageId } : undefined;
  const parts = [agent, text ? `“${text}”` : `prompt ${owner.messageId ?? owner.prompt}`, ...(when ? [when] : [])];
  const statusParts = [agent, text ? `“${clip(text, STATUS_PROMPT_CHARS)}”` : undefined, when].filter((p) => p !== undefined);
  return { status: `$(hubot) ${statusParts.join(' · ')}`, summary: parts.join(' · '), ...(prompt ? { prompt } : {}), byAgent: true };
}

/** A command link for a markdown string (the hover and the tooltip are trusted for these commands only). */
export function commandLink(title: string, command: string, args: unknown): string {
  return `[${title}](command:${command}?${encodeURIComponent(JSON.stringify(args))})`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, '\\$&');
}

/** The hover's (and the status item's tooltip's) markdown. `fileUri`: the file's uri, for its history. */
export function lineBlameMarkdown(owner: LineOwner, now: Date, fileUri: unknown): string {
  const t = lineBlameText(owner, now);
  const links: string[] = [];
  if (t.prompt) links.push(commandLink('Open the prompt', 'agentRewind.openTranscript', [t.prompt]));
  links.push(commandLink('File history', 'agentRewind.fileHistory', [fileUri]));
  const session = owner.by === 'turn' && owner.session ? `\n\nSession: ${escapeMarkdown(owner.session.title)}` : '';
  return `**Agent blame:** ${escapeMarkdown(t.summary)}${session}\n\n${links.join(' · ')}`;
}
