// Lenient JSONL: a bad line is reported (1-based line number + reason) and skipped, never thrown, so one corrupt
// line cannot make a whole session unreadable. Values nested deeper than MAX_JSON_DEPTH are kept as their JSON text.
import { parseBoundedJson } from '../json-depth';

export interface SkippedLine {
  line: number;
  reason: string;
}

export interface ParsedJsonl {
  /** Parsed objects with their 1-based line numbers. */
  records: { value: Record<string, unknown>; line: number }[];
  skipped: SkippedLine[];
  /** Whether the text ends in the middle of a line (a torn or unterminated last write). */
  unterminated: boolean;
  /** How many lines the text holds (an unterminated last line included). */
  lineCount: number;
}

/** Parsed objects and their 1-based line numbers as parallel arrays (no per-line wrapper: loading 100,000 entries
 *  should cost little more than JSON.parse itself). */
export interface ParsedJsonlColumns {
  values: Record<string, unknown>[];
  lines: number[];
  skipped: SkippedLine[];
  unterminated: boolean;
  lineCount: number;
}

/**
 * Parses JSONL text. An unterminated last line is kept when it is a complete JSON object (the writer was killed
 * between the object and its newline) and reported as skipped otherwise.
 * @param firstLine the line number of the first line in `text` (for parsing a tail of a file).
 */
export function parseJsonlColumns(text: string, firstLine = 1): ParsedJsonlColumns {
  const values: Record<string, unknown>[] = [];
  const lines: number[] = [];
  const skipped: SkippedLine[] = [];
  const n = text.length;
  const unterminated = n > 0 && text.charCodeAt(n - 1) !== 10;
  // a byte-order mark that an editor put before the first line is not part of the JSON
  let start = firstLine === 1 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = firstLine;
  while (start < n) {
    let end = text.indexOf('\n', start);
    const last = end === -1;
    if (last) end = n;
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    if (stop > start) {
      const raw = text.slice(start, stop);
      let value: unknown;
      let ok = true;
      try {
        value = parseBoundedJson(raw);
      } catch (err) {
        ok = false;
        if (raw.trim() !== '') skipped.push({ line, reason: last && unterminated ? 'incomplete last line' : `invalid JSON: ${(err as Error).message}` });
      }
      if (ok) {
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          values.push(value as Record<string, unknown>);
          lines.push(line);
        } else skipped.push({ line, reason: 'not a JSON object' });
      }
    }
    start = end + 1;
    line++;
  }
  return { values, lines, skipped, unterminated, lineCount: line - firstLine };
}

/** parseJsonlColumns with one record object per parsed line. */
export function parseJsonlLenient(text: string, firstLine = 1): ParsedJsonl {
  const { values, lines, skipped, unterminated, lineCount } = parseJsonlColumns(text, firstLine);
  return { records: values.map((value, i) => ({ value, line: lines[i]! })), skipped, unterminated, lineCount };
}

/** Splits bytes at the last newline: the complete part is safe to parse, the rest may still be being written. */
export function completeLinesOf(buf: Buffer): { complete: Buffer; rest: number } {
  const lastNl = buf.lastIndexOf(0x0a);
  if (lastNl === -1) return { complete: buf.subarray(0, 0), rest: buf.length };
  return { complete: buf.subarray(0, lastNl + 1), rest: buf.length - lastNl - 1 };
}
