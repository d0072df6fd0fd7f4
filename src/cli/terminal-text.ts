// Human (non --json) output prints text that comes from session files: titles, message previews, branch and
// checkpoint names. A file can hold escape sequences (an agent's colored tool output, a hand edit, a hostile file), and
// printed raw they recolor, clear or retitle the user's terminal, or reorder what is shown (bidi controls). --json is
// not affected: JSON escapes control characters and machines read the exact text.

import { displayPath } from '../shared/display-path';

// C0 and C1 controls (tab and newline kept apart below), DEL, and the bidi embedding/override/isolate controls.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` safe to print on a terminal: unsafe controls become U+FFFD, the bytes of a file name that is not valid
 *  UTF-8 \xNN (displayPath); with oneLine, tabs and newlines become spaces. */
export function forTerminal(text: string, opts: { oneLine?: boolean } = {}): string {
  const safe = displayPath(text.replace(UNSAFE, '\uFFFD'));
  return opts.oneLine ? safe.replace(/[\t\n]/g, ' ') : safe;
}

/** Bold on / off inside text passed to forPerson (private-use characters: never printed as such). */
export const BOLD_ON = '\uE000';
export const BOLD_OFF = '\uE001';
const MARKS = /[\uE000\uE001]/g;

/** Text from a session or a file name that is put between BOLD_ON/BOLD_OFF marks: its own marks are neutralized. */
export function unmarked(text: string): string {
  return text.replace(MARKS, '\uFFFD');
}

/**
 * Everything the CLI prints for a person (not --json) goes through here: forTerminal first, then our own bold marks
 * become escape sequences (on a terminal) or nothing. No escape sequence from a session or a file name gets through.
 */
export function forPerson(text: string, opts: { styles: boolean }): string {
  return forTerminal(text).replace(MARKS, (m) => (!opts.styles ? '' : m === BOLD_ON ? '\x1b[1m' : '\x1b[22m'));
}

/** One field of a line (a path, a name, an id): unsafe controls and line breaks neutralized. */
export const field = (text: string): string => forTerminal(text, { oneLine: true });
