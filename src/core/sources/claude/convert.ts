// Anthropic Messages API shapes (as Claude Code stores them) → pi's message shapes, which the engine's transcript and
// context code already understand.
import type { AgentMessage, ContentBlock } from '../../session/types';
import { imageBlock } from './classify';
import { obj, str, type ClaudeRecord } from './lines';

export function assistantBlocks(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const out: ContentBlock[] = [];
  for (const raw of content) {
    const b = obj(raw);
    if (!b) continue;
    switch (b.type) {
      case 'text':
        out.push({ type: 'text', text: str(b.text) ?? '' });
        break;
      case 'thinking':
        out.push({ type: 'thinking', thinking: str(b.thinking) ?? '', ...(typeof b.signature === 'string' ? { thinkingSignature: b.signature } : {}) });
        break;
      case 'redacted_thinking':
        out.push({ type: 'thinking', thinking: '', redacted: true });
        break;
      case 'tool_use':
      case 'server_tool_use':
        out.push({ type: 'toolCall', id: str(b.id) ?? '', name: str(b.name) ?? 'tool', arguments: b.input ?? {} });
        break;
      default:
        out.push(b as ContentBlock);
    }
  }
  return out;
}

// pi's names for why a turn stopped, so "error" is what marks a failed reply everywhere.
const STOP_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'toolUse',
  max_tokens: 'length',
  pause_turn: 'stop',
  refusal: 'stop',
};

/** The assistant message for the first line of an API message; later lines of the same message are merged in. */
export function assistantMessage(rec: ClaudeRecord, timestamp: number): AgentMessage {
  const m = obj(rec.message) ?? {};
  const msg: AgentMessage = { role: 'assistant', content: assistantBlocks(m.content), provider: 'anthropic', timestamp };
  if (typeof m.model === 'string') msg.model = m.model;
  applyAssistantLine(msg, rec);
  return msg;
}

export function applyAssistantLine(msg: AgentMessage, rec: ClaudeRecord): void {
  const m = obj(rec.message) ?? {};
  const stop = str(m.stop_reason);
  if (stop) msg.stopReason = STOP_REASONS[stop] ?? stop;
  const usage = obj(m.usage);
  if (usage) {
    // streaming lines of one message repeat (or grow) the usage: the largest figure is the message's, never a sum
    const prev = obj(msg.usage) ?? {};
    const num = (k: string, from: ClaudeRecord) => (typeof from[k] === 'number' ? (from[k] as number) : 0);
    const input = Math.max(num('input', prev), num('input_tokens', usage));
    const output = Math.max(num('output', prev), num('output_tokens', usage));
    const cacheRead = Math.max(num('cacheRead', prev), num('cache_read_input_tokens', usage));
    const cacheWrite = Math.max(num('cacheWrite', prev), num('cache_creation_input_tokens', usage));
    msg.usage = { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite };
  }
  if (rec.isApiErrorMessage === true || rec.apiError !== undefined || rec.error !== undefined) {
    msg.stopReason = 'error';
    const text = assistantBlocks(m.content)
      .map((b) => (b.type === 'text' ? String(b.text) : ''))
      .join('');
    msg.errorMessage = text || (typeof rec.apiError === 'string' ? rec.apiError : typeof rec.error === 'string' ? rec.error : 'API error');
  }
}

/** A tool_result block's content as pi's toolResult content (text, and images). */
export function toolResultContent(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const out: ContentBlock[] = [];
  for (const raw of content) {
    const b = obj(raw);
    if (!b) continue;
    if (b.type === 'text') out.push({ type: 'text', text: str(b.text) ?? '' });
    else if (b.type === 'image') out.push(imageBlock(b));
    else out.push({ type: 'text', text: `[${String(b.type)}]` });
  }
  return out;
}
