// JSON read from session files has a bounded depth. JSON.parse takes any depth, but everything after it recurses:
// JSON.stringify (the CLI's output, tool views), structuredClone (messages to a webview or a worker), and our own
// walks over content. A line nested 10,000 deep made `context` fail with "Maximum call stack size exceeded". The rule:
// an array or object that starts deeper than MAX_JSON_DEPTH levels is kept as a string holding its JSON text, exactly
// as the line had it, so it is shown as text and nothing recurses past the bound. Values within the bound (every real
// transcript: tool inputs are a few levels deep) are what JSON.parse gives.

/** Containers nested deeper than this are kept as their JSON text. */
export const MAX_JSON_DEPTH = 100;

/** Whether `value` has an array or object nested deeper than `max` levels. Recursive, but never deeper than `max` + 1
 *  calls: it stops at the first container past the bound. No allocation: it runs on every line a reader parses. */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  return value !== null && typeof value === 'object' && deeperThan(value, 1, max);
}

function deeperThan(v: object, depth: number, max: number): boolean {
  if (depth > max) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const c: unknown = v[i];
      if (c !== null && typeof c === 'object' && deeperThan(c, depth + 1, max)) return true;
    }
    return false;
  }
  for (const k in v) {
    const c: unknown = (v as Record<string, unknown>)[k];
    if (c !== null && typeof c === 'object' && deeperThan(c, depth + 1, max)) return true;
  }
  return false;
}

/** Where the array or object opening at `open` closes (its last character's index); -1 when it does not. */
function closingOf(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: skip to its closing quote, past escapes
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 92) i++;
        else if (s === 34) break;
      }
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * The JSON text `text` with every array or object that starts deeper than `max` levels replaced by a JSON string of
 * its own text. One pass: a replaced value is skipped whole. `text` must be valid JSON.
 */
export function capJsonDepth(text: string, max = MAX_JSON_DEPTH): string {
  let out = '';
  let copied = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 92) i++;
        else if (s === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if (depth === max) {
        const close = closingOf(text, i);
        if (close < 0) break;
        out += text.slice(copied, i) + JSON.stringify(text.slice(i, close + 1));
        copied = close + 1;
        i = close;
      } else depth++;
    } else if (c === 125 || c === 93) depth--;
  }
  return out + text.slice(copied);
}

/** JSON.parse of a session line, with containers deeper than MAX_JSON_DEPTH kept as their text (see above). */
export function parseBoundedJson(text: string): unknown {
  return parseBoundedJsonReporting(text).value;
}

/** parseBoundedJson, saying whether something was kept as text (the value then differs from the line). */
export function parseBoundedJsonReporting(text: string): { value: unknown; capped: boolean } {
  const value: unknown = JSON.parse(text);
  return nestsDeeperThan(value) ? { value: JSON.parse(capJsonDepth(text)), capped: true } : { value, capped: false };
}
