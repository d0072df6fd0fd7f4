// A Codex rollout is JSON lines `{timestamp, type, payload}` (RolloutLine with a flattened, tagged RolloutItem). The
// byte-level splitting is the shared line reader's (sources/jsonl-lines.ts: lenient, bad lines reported, a torn last
// line left for later); this file adds the envelope's accessors.
import { epochMs, forEachJsonLine, obj, splitJsonLines, str, type JsonRecord, type RawLine, type SplitResult } from '../jsonl-lines';

export type CodexRecord = JsonRecord;
export type { RawLine, SplitResult };
export { epochMs, obj, str };

/** Every line parsed, with its byte range (what the fork writer copies). */
export function splitRolloutLines(buf: Buffer): SplitResult {
  return splitJsonLines(buf);
}

// Line kinds the reader never uses, told from the line's first bytes without parsing it. Codex writes the envelope
// as `{"timestamp":…,("ordinal":…,)"type":"<kind>","payload":{"type":"<event>"…`, so the first `"type"` key is the
// line's kind and, for an event_msg, the second one is the event's. A rollout written (or re-written by a tool) with
// spaces after the colons, `"type": "<kind>"`, is read the same way.
const UNUSED_KINDS = new Set(['token_usage_record', 'world_state', 'turn_diff', 'ghost_snapshot']);
const USED_EVENTS = new Set(['task_started', 'turn_started', 'thread_rolled_back', 'patch_apply_end', 'item_completed', 'thread_name_updated']);
const TYPE_KEY = Buffer.from('"type"');
/** How far into the line (or past the previous `"type"`) the key is looked for, and how long a kind may be. */
const KEY_WINDOW = 160;
const MAX_KIND = 64;

const isBlank = (c: number | undefined) => c === 32 || c === 9;

/**
 * The value of the first `"type": "<value>"` in buf[from, end), only looking KEY_WINDOW bytes on. The search is held
 * to that window: a line without the key must not send it to the end of the file, which made a rollout of
 * lines without the compact key quadratic to open (every line searched the rest of the file).
 */
export function typeAt(buf: Buffer, from: number, end: number): { value: string; next: number } | undefined {
  const window = buf.subarray(from, Math.min(end, from + KEY_WINDOW + TYPE_KEY.length));
  let at = window.indexOf(TYPE_KEY);
  while (at >= 0 && at <= KEY_WINDOW) {
    let i = from + at + TYPE_KEY.length;
    while (i < end && isBlank(buf[i])) i++;
    if (buf[i] === 58) {
      i++;
      while (i < end && isBlank(buf[i])) i++;
      if (buf[i] !== 34) return undefined;
      const start = i + 1;
      const close = buf.subarray(start, Math.min(end, start + MAX_KIND + 1)).indexOf(34);
      if (close < 0) return undefined;
      return { value: buf.toString('latin1', start, start + close), next: start + close };
    }
    at = window.indexOf(TYPE_KEY, at + 1);
  }
  return undefined;
}

/** Whether a line can be left unparsed by the reader: a kind it never uses, an event it ignores, or an
 *  item_completed that is not a FileChange. Anything unexpected is parsed (and reported when broken). */
export function unusedLine(buf: Buffer, start: number, end: number): boolean {
  const kind = typeAt(buf, start, end);
  if (!kind) return false;
  if (UNUSED_KINDS.has(kind.value)) return true;
  if (kind.value !== 'event_msg') return false;
  const event = typeAt(buf, kind.next, end);
  if (!event) return false;
  if (!USED_EVENTS.has(event.value)) return true;
  if (event.value !== 'item_completed') return false;
  const item = typeAt(buf, event.next, end);
  return item !== undefined && item.value !== 'FileChange';
}

/** The lines the reader uses, parsed; the others are skipped by their first bytes (3–5× fewer JSON.parse bytes on a
 *  real rollout, where token counts, world state and item_completed copies are most of the file). */
export function splitRolloutLinesForReading(buf: Buffer): SplitResult {
  const lines: RawLine[] = [];
  return { lines, ...forEachJsonLine(buf, (l) => lines.push(l), unusedLine) };
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
