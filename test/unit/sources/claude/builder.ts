// Writes small synthetic Claude Code transcripts, shaped like what 2.1.x writes (fields trimmed to what matters).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../session/helpers';

export type Line = Record<string, unknown>;

export const SESSION_ID = '11111111-2222-4333-8444-555555555555';

export class Transcript {
  readonly lines: Line[] = [];
  private n = 0;
  private clock = Date.parse('2026-01-01T00:00:00.000Z');

  constructor(
    readonly sessionId = SESSION_ID,
    readonly cwd = '/work/proj',
  ) {}

  /** The next timestamp (one second later than the last). */
  tick(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  private line(parent: string | null, fields: Line): string {
    const uuid = (fields.uuid as string | undefined) ?? `u${++this.n}`;
    this.lines.push({
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: '2.1.330',
      timestamp: this.tick(),
      ...fields,
      uuid,
    });
    return uuid;
  }

  user(parent: string | null, content: unknown, extra: Line = {}): string {
    return this.line(parent, { type: 'user', message: { role: 'user', content }, ...extra });
  }

  /** One line of an assistant response; lines of one response share `msgId`. */
  assistant(parent: string | null, msgId: string, block: Line, extra: Line = {}): string {
    return this.line(parent, {
      type: 'assistant',
      requestId: `req_${msgId}`,
      message: {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [block],
        stop_reason: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      },
      ...extra,
    });
  }

  text(parent: string | null, msgId: string, text: string, extra: Line = {}): string {
    return this.assistant(parent, msgId, { type: 'text', text }, extra);
  }

  toolUse(parent: string | null, msgId: string, id: string, name: string, input: unknown, extra: Line = {}): string {
    return this.assistant(parent, msgId, { type: 'tool_use', id, name, input }, extra);
  }

  toolResult(parent: string, toolUseId: string, content: unknown, extra: Line = {}): string {
    return this.user(parent, [{ type: 'tool_result', tool_use_id: toolUseId, content }], { toolUseResult: { stdout: String(content) }, ...extra });
  }

  attachment(parent: string | null, extra: Line = {}): string {
    return this.line(parent, { type: 'attachment', attachment: { type: 'hook_additional_context', content: ['x'] }, ...extra });
  }

  system(parent: string | null, subtype: string, extra: Line = {}): string {
    return this.line(parent, { type: 'system', subtype, content: '', ...extra });
  }

  /** compact_boundary + the summary user line; returns the summary's uuid. */
  compact(logicalParent: string, summary: string): string {
    const b = this.system(null, 'compact_boundary', { logicalParentUuid: logicalParent, compactMetadata: { trigger: 'manual', preTokens: 1234 } });
    return this.user(b, summary, { isCompactSummary: true, isVisibleInTranscriptOnly: true });
  }

  raw(line: Line): void {
    this.lines.push(line);
  }

  toString(): string {
    return this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  }

  /** Writes <configDir>/projects/<project>/<sessionId>.jsonl and returns its path. */
  write(configDir: string, project = '-work-proj'): string {
    const dir = join(configDir, 'projects', project);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${this.sessionId}.jsonl`);
    writeFileSync(file, this.toString());
    return file;
  }
}

/** A Claude config folder of the test's own, removed when that test ends. */
export function tempConfigDir(t: { after(fn: () => void): void }): string {
  return tempDir(t, 'ar-cc-');
}
