// A Codex rollout is JSON lines `{timestamp, type, payload}` (RolloutLine with a flattened, tagged RolloutItem). The
// byte-level splitting is the same as Claude Code's (lenient: bad lines reported, a torn last line left for later),
// so it is shared; this file adds the envelope's accessors.
import { epochMs, obj, splitClaudeLines, str, type ClaudeRecord, type RawLine, type SplitResult } from '../claude/lines';

export type CodexRecord = ClaudeRecord;
export type { RawLine, SplitResult };
export { epochMs, obj, str };

export function splitRolloutLines(buf: Buffer): SplitResult {
  return splitClaudeLines(buf);
}

/** The line's payload (an empty object when missing or not an object). */
export function payloadOf(rec: CodexRecord): CodexRecord {
  return obj(rec.payload) ?? {};
}

/** `event_msg` / `response_item` lines carry their own `payload.type`. */
export function innerType(rec: CodexRecord): string | undefined {
  return str(payloadOf(rec).type);
}

/** A UUIDv7's millisecond timestamp (undefined for other ids). */
export function uuidV7Ms(id: string | undefined): number | undefined {
  if (!id || !/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}
