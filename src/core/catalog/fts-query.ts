// Turns what a person typed into an FTS4 MATCH expression that cannot be a syntax error: every word becomes a quoted
// term (so AND, OR, NOT, NEAR, -, *, ^ and parentheses are plain text), "quoted parts" stay phrases, and the last
// word matches as a prefix so results appear while typing.

/** Letters and digits (any script); everything else separates words, as the unicode61 tokenizer does. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

export interface FtsQuery {
  /** The MATCH expression, or undefined when the input holds no word to search for. */
  match: string | undefined;
  /** The words searched for (for highlighting elsewhere). */
  words: string[];
}

export function toFtsQuery(input: string, opts: { prefixLast?: boolean } = {}): FtsQuery {
  const prefixLast = opts.prefixLast ?? true;
  const groups: string[][] = [];
  // Split on double quotes: odd segments were inside quotes (an unbalanced quote just runs to the end).
  input.split('"').forEach((segment, i) => {
    const words = segment.match(WORD) ?? [];
    if (words.length === 0) return;
    if (i % 2 === 1) groups.push(words);
    else for (const w of words) groups.push([w]);
  });
  if (groups.length === 0) return { match: undefined, words: [] };
  const endsInWord = /[\p{L}\p{N}\p{M}]$/u.test(input);
  const terms = groups.map((words, i) => {
    const last = i === groups.length - 1;
    // A single word still being typed matches as a prefix; a quoted phrase matches exactly.
    const star = prefixLast && last && endsInWord && words.length === 1 ? '*' : '';
    return `"${words.join(' ')}${star}"`;
  });
  return { match: terms.join(' '), words: groups.flat() };
}
