// Writes small synthetic Codex rollouts, shaped like what 0.169 writes (fields trimmed to what matters).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Line = Record<string, unknown>;

export const THREAD_ID = '01a20aad-def5-7222-afbb-2e7d1a0e4edf';

export class Rollout {
  readonly lines: Line[] = [];
  private clock = Date.parse('2026-11-23T10:00:00.000Z');
  private turnN = 0;
  private callN = 0;
  turnId: string | undefined;

  constructor(
    readonly threadId = THREAD_ID,
    readonly cwd = '/work/proj',
    meta: Line = {},
  ) {
    this.push('session_meta', {
      id: threadId,
      session_id: threadId,
      timestamp: this.iso(),
      cwd,
      originator: 'codex_exec',
      cli_version: '0.169.0',
      source: 'exec',
      base_instructions: 'You are Codex.',
      ...meta,
    });
  }

  private iso(): string {
    return new Date(this.clock).toISOString();
  }

  push(type: string, payload: Line): this {
    this.clock += 1000;
    this.lines.push({ timestamp: this.iso(), type, payload });
    return this;
  }

  item(payload: Line): this {
    return this.push('response_item', { ...payload, ...(this.turnId ? { internal_chat_message_metadata_passthrough: { turn_id: this.turnId } } : {}) });
  }

  event(payload: Line): this {
    return this.push('event_msg', payload);
  }

  /** task_started, the injected context, turn_context, then the prompt (and its event_msg copy). */
  turn(prompt: string, turnId = `01a20aad-0000-7000-8000-${String(++this.turnN).padStart(12, '0')}`): this {
    this.turnId = turnId;
    this.event({ type: 'task_started', turn_id: turnId });
    this.push('response_item', {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: '<permissions instructions>never ask</permissions instructions>' }],
    });
    this.push('response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${this.cwd}</cwd>\n</environment_context>` }],
    });
    this.push('turn_context', { turn_id: turnId, cwd: this.cwd, model: 'gpt-5.5' });
    this.item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
    this.event({ type: 'user_message', message: prompt });
    return this;
  }

  say(text: string): this {
    this.event({ type: 'agent_message', message: text });
    return this.item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
  }

  /** exec_command function call + output; returns the call id through `cb`. */
  shell(cmd: string, output = '', cb?: (callId: string) => void): this {
    const callId = `call_${++this.callN}`;
    cb?.(callId);
    this.item({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd }), call_id: callId });
    return this.item({ type: 'function_call_output', call_id: callId, output });
  }

  /** apply_patch custom tool call; the change event comes before its output, as 0.169 writes it. */
  patch(input: string, changes: Line, style: 'item_completed' | 'patch_apply_end' = 'item_completed'): this {
    const callId = `call_${++this.callN}`;
    this.item({ type: 'custom_tool_call', name: 'apply_patch', input, call_id: callId });
    if (style === 'item_completed')
      this.event({ type: 'item_completed', turn_id: this.turnId, item: { type: 'FileChange', id: callId, changes, status: 'completed' } });
    else this.event({ type: 'patch_apply_end', call_id: callId, success: true, changes });
    return this.item({ type: 'custom_tool_call_output', call_id: callId, output: 'Exit code: 0\nOutput:\nSuccess.' });
  }

  end(): this {
    return this.event({ type: 'task_complete', turn_id: this.turnId, last_agent_message: null });
  }

  rollback(n: number): this {
    return this.event({ type: 'thread_rolled_back', num_turns: n });
  }

  raw(line: string): this {
    (this.lines as unknown[]).push(line);
    return this;
  }

  toString(): string {
    return this.lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
  }

  /** Bytes of the first `n` lines (what a later segment's history_base.end_byte_offset names). */
  bytesOfLines(n: number): number {
    return Buffer.byteLength(
      this.lines
        .slice(0, n)
        .map((l) => (typeof l === 'string' ? l : JSON.stringify(l)) + '\n')
        .join(''),
    );
  }

  /** Writes <home>/sessions/2026/11/23/rollout-…-<id>[_<segment>].jsonl and returns its path. */
  write(home: string, day = '2026/11/23', opts: { segmentId?: string; time?: string } = {}): string {
    const dir = join(home, 'sessions', ...day.split('/'));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `rollout-${day.replace(/\//g, '-')}T${opts.time ?? '10-00-00'}-${this.threadId}${opts.segmentId ? `_${opts.segmentId}` : ''}.jsonl`);
    writeFileSync(file, this.toString());
    return file;
  }
}
