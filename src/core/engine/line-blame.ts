// Agent blame for an editor (issue 27, item 5): the engine's blame is of the file as saved; the editor's text may differ
// (unsaved edits). Each line of the editor's text keeps the owner of the saved line it still is (a line diff, as the
// blame itself is made) and a line the saved file does not have is the user's, not yet saved. A turn's prompt comes
// with what the editor says about it: its agent, its session's title, its text and when it was sent.
import { diffArrays } from 'diff';
import type { NamedBlame, NamedOwner } from './file-history';
import type { NamedPrompt, NamedSession, PromptNames } from './prompt-names';

/** Who last wrote a line of the editor's text. */
export type LineOwner = DescribedOwner | { by: 'unsaved' };

/** A blame owner with, for one session's prompt, its session and prompt named where they were found. */
export type DescribedOwner = NamedOwner & { session?: NamedSession; promptInfo?: NamedPrompt };

/** A file's blame with its prompts described (engine.describedBlame). */
export interface DescribedBlame {
  root: string;
  path: string;
  lines: { text: string; owner: DescribedOwner }[];
}

/** The blame's turns with their sessions and prompts named (`names` read the sessions its turns belong to). */
export function describeBlame(blame: NamedBlame & { root: string }, names: Pick<PromptNames, 'session' | 'message'>): DescribedBlame {
  const described = new Map<string, DescribedOwner>();
  const describe = (o: NamedOwner): DescribedOwner => {
    if (o.by !== 'turn') return o;
    const key = `${o.sessionId}\u0000${o.prompt}`;
    let d = described.get(key);
    if (!d) {
      const session = names.session(o.sessionId);
      const promptInfo = o.sessionRef && o.messageId ? names.message(o.sessionRef, o.messageId) : undefined;
      d = { ...o, ...(session ? { session } : {}), ...(promptInfo ? { promptInfo } : {}) };
      described.set(key, d);
    }
    return d;
  };
  return { root: blame.root, path: blame.path, lines: blame.lines.map((l) => ({ text: l.text, owner: describe(l.owner) })) };
}

/** The editor's lines: split on LF or CRLF; the empty line after a final newline is no line of the file. */
export function editorLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Per line of `text` (0-based, as the editor counts), the owner of that line. */
export function ownersOfText(blame: Pick<DescribedBlame, 'lines'>, text: string): LineOwner[] {
  const saved = blame.lines.map((l) => l.text);
  const now = editorLines(text);
  const out: LineOwner[] = [];
  let i = 0;
  for (const part of diffArrays(saved, now)) {
    const n = part.count ?? part.value.length;
    if (part.removed) i += n;
    else if (part.added) for (let k = 0; k < n; k++) out.push({ by: 'unsaved' });
    else for (let k = 0; k < n; k++) out.push(blame.lines[i++]!.owner);
  }
  return out;
}
