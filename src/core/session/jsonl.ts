// Lenient JSONL: a bad line is reported (1-based line number + reason) and skipped, never thrown, so one corrupt
// line cannot make a whole session unreadable.

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

/**
 * Parses JSONL text. An unterminated last line is kept when it is a complete JSON object (the writer was killed
 * between the object and its newline) and reported as skipped otherwise.
 * @param firstLine the line number of the first line in `text` (for parsing a tail of a file).
 */
export function parseJsonlLenient(text: string, firstLine = 1): ParsedJsonl {
  const records: ParsedJsonl['records'] = [];
  const skipped: SkippedLine[] = [];
  const unterminated = text.length > 0 && !text.endsWith('\n');
  let start = 0;
  let line = firstLine;
  const n = text.length;
  while (start < n) {
    let end = text.indexOf('\n', start);
    const last = end === -1;
    if (last) end = n;
    const raw = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    if (raw.trim() !== '') {
      let value: unknown;
      let ok = false;
      try {
        value = JSON.parse(raw);
        ok = true;
      } catch (err) {
        skipped.push({ line, reason: last && unterminated ? 'incomplete last line' : `invalid JSON: ${(err as Error).message}` });
      }
      if (ok) {
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) records.push({ value: value as Record<string, unknown>, line });
        else skipped.push({ line, reason: 'not a JSON object' });
      }
    }
    start = end + 1;
    line++;
  }
  return { records, skipped, unterminated, lineCount: line - firstLine };
}

/** Splits bytes at the last newline: the complete part is safe to parse, the rest may still be being written. */
export function completeLinesOf(buf: Buffer): { complete: Buffer; rest: number } {
  const lastNl = buf.lastIndexOf(0x0a);
  if (lastNl === -1) return { complete: buf.subarray(0, 0), rest: buf.length };
  return { complete: buf.subarray(0, lastNl + 1), rest: buf.length - lastNl - 1 };
}
