// Which response items are the conversation a person had: Codex also records what it injects as user or developer
// messages (environment context, AGENTS.md / user instructions, skills, permissions), which are hidden here.
import type { ContentBlock } from '../../session/types';
import { obj, str, type CodexRecord } from './lines';

const INJECTED_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md instructions',
  '# agents.md instructions',
  '<permissions instructions>',
  '<user_shell_command>',
  '<turn_aborted>',
  '<skills_instructions>',
  '<collaboration_mode>',
  '<personality_spec>',
  '<apps_instructions>',
];

/** The text parts of a message item's content (`input_text` / `output_text` / `text`), joined. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const c of content) {
    const b = obj(c);
    const t = b ? str(b.text) : undefined;
    if (t !== undefined) parts.push(t);
  }
  return parts.join('\n');
}

/** The message's content as our blocks (text, images kept as a placeholder text: their data is not stored). */
export function messageBlocks(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const out: ContentBlock[] = [];
  for (const c of Array.isArray(content) ? content : []) {
    const b = obj(c);
    if (!b) continue;
    const t = str(b.text);
    if (t !== undefined) out.push({ type: 'text', text: t });
    else if (b.type === 'input_image') out.push({ type: 'text', text: '[image]' });
  }
  return out;
}

/** Whether a `user` message item is something Codex injected rather than a prompt the person typed. */
export function isInjectedUserText(text: string): boolean {
  const t = text.trimStart();
  return INJECTED_PREFIXES.some((p) => t.startsWith(p));
}

export type ItemKind = 'prompt' | 'assistantText' | 'reasoning' | 'toolCall' | 'toolOutput' | 'hidden';

export function classifyItem(item: CodexRecord): ItemKind {
  switch (item.type) {
    case 'message': {
      const role = str(item.role);
      if (role === 'assistant') return 'assistantText';
      if (role === 'user') return isInjectedUserText(messageText(item.content)) ? 'hidden' : 'prompt';
      return 'hidden'; // developer / system
    }
    case 'reasoning':
      return 'reasoning';
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call':
    case 'web_search_call':
    case 'tool_search_call':
    case 'image_generation_call':
      return 'toolCall';
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'tool_search_output':
      return 'toolOutput';
    default:
      return 'hidden';
  }
}
