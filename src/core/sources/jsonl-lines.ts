// Splits a JSONL file (a Claude Code transcript, a Codex rollout, any agent's line log) into parsed lines with their
// byte ranges. Works on the raw bytes (not one decoded string) so every line knows where it starts in the file: the
// fork writers copy lines by those ranges and a hook snapshot is matched to a prompt by the file size it saw.
// Lenient: a bad line is reported and skipped, a torn last line (still being written) left for later.
import { parseBoundedJsonReporting } from '../json-depth';

export type JsonRecord = Record<string, unknown>;

export interface RawLine {
  rec: JsonRecord;
  /** 1-based line number. */
  line: number;
  byteStart: number;
  /** Exclusive; the newline is not included. */
  byteEnd: number;
  /** Part of the line was nested deeper than MAX_JSON_DEPTH and is in `rec` as its JSON text: the bytes are the line. */
  capped?: true;
}

export interface ScanResult {
  skipped: { line: number; reason: string }[];
  /** Bytes of a torn last line (the agent is still writing it); 0 when the file ends in a newline. */
  tornBytes: number;
}

export interface SplitResult extends ScanResult {
  lines: RawLine[];
}

export function splitJsonLines(buf: Buffer): SplitResult {
  const lines: RawLine[] = [];
  return { lines, ...forEachJsonLine(buf, (l) => lines.push(l)) };
}

/** Hands each parsed line to `visit` and keeps none, so a big transcript's records can be collected as soon as they
 *  have been used (holding them all doubles the garbage collector's work). `unused(buf, start, end)` may rule a line
 *  out by its first bytes, before it is parsed (a reader that never looks at some kinds of line). */
export function forEachJsonLine(buf: Buffer, visit: (line: RawLine) => void, unused?: (buf: Buffer, start: number, end: number) => boolean): ScanResult {
  const skipped: { line: number; reason: string }[] = [];
  const n = buf.length;
  let start = n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  let lineNo = 1;
  let tornBytes = 0;
  while (start < n) {
    let end = buf.indexOf(10, start);
    const last = end === -1;
    if (last) end = n;
    const stop = end > start && buf[end - 1] === 13 ? end - 1 : end;
    if (stop > start && !(unused && buf[stop - 1] === 125 && unused(buf, start, stop))) {
      const text = buf.toString('utf8', start, stop);
      let value: unknown;
      let capped = false;
      let ok = true;
      try {
        // deeper than MAX_JSON_DEPTH: kept as text, so nothing that reads the record recurses without bound
        ({ value, capped } = parseBoundedJsonReporting(text));
      } catch (err) {
        ok = false;
        // a last line without its newline is a write in progress: it is read once it is complete, not reported
        if (last) tornBytes = n - start;
        else if (text.trim() !== '') skipped.push({ line: lineNo, reason: `invalid JSON: ${(err as Error).message}` });
      }
      if (ok) {
        if (value !== null && typeof value === 'object' && !Array.isArray(value))
          visit({ rec: value as JsonRecord, line: lineNo, byteStart: start, byteEnd: stop, ...(capped ? { capped: true as const } : {}) });
        else skipped.push({ line: lineNo, reason: 'not a JSON object' });
      }
    }
    start = end + 1;
    lineNo++;
  }
  return { skipped, tornBytes };
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function obj(v: unknown): JsonRecord | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonRecord) : undefined;
}

export function epochMs(iso: string | undefined): number {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? 0 : t;
}
