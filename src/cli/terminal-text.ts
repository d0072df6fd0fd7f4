// Human (non --json) output prints text that comes from session files: titles, message previews, branch and
// checkpoint names. A file can hold escape sequences (an agent's colored tool output, a hand edit, a hostile file), and
// printed raw they recolor, clear or retitle the user's terminal, or reorder what is shown (bidi controls). --json is
// not affected: JSON escapes control characters and machines read the exact text.

// C0 and C1 controls (tab and newline kept apart below), DEL, and the bidi embedding/override/isolate controls.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` safe to print on a terminal: unsafe controls become U+FFFD; with oneLine, tabs and newlines become spaces. */
export function forTerminal(text: string, opts: { oneLine?: boolean } = {}): string {
  const safe = text.replace(UNSAFE, '\uFFFD');
  return opts.oneLine ? safe.replace(/[\t\n]/g, ' ') : safe;
}
