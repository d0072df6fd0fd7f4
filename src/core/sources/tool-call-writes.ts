// The files a session's own tool calls wrote, by the user message whose turn made each call (SourceAdapter.
// filesWrittenByTurn for agents whose transcript records its file tools' calls with their paths: Claude Code's Write
// and Edit). Read from the pi-shaped entries every view has: a call belongs to the nearest user message above it.
import { isAbsolute, resolve } from 'node:path';
import type { SessionEntry } from '../session/types';
import { isUserMessage } from '../transcript/transcript';
import type { SessionView } from './session-view';

/** The paths one tool call writes (as its arguments give them), or none when it writes no file. */
export type WrittenPathsOf = (name: string, args: Record<string, unknown>) => readonly string[];

/** By user message id, the absolute paths its turn's tool calls wrote (a relative path is taken from the session's
 *  folder), on every branch. */
export function filesWrittenByToolCalls(view: SessionView, pathsOf: WrittenPathsOf): Map<string, string[]> {
  const entries = view.getEntries();
  const byId = new Map(entries.map((e) => [e.id, e]));
  const turnOf = new Map<string, string | null>();
  /** The nearest user message at or above the entry (iteratively: a long session is a long chain). */
  const turn = (start: SessionEntry): string | null => {
    const chain: SessionEntry[] = [];
    let found: string | null = null;
    for (let e: SessionEntry | undefined = start; e; e = e.parentId ? byId.get(e.parentId) : undefined) {
      const known = turnOf.get(e.id);
      if (known !== undefined) {
        found = known;
        break;
      }
      if (isUserMessage(e)) {
        found = e.id;
        turnOf.set(e.id, e.id);
        break;
      }
      chain.push(e);
    }
    for (const e of chain) turnOf.set(e.id, found);
    return found;
  };
  const out = new Map<string, Set<string>>();
  for (const e of entries) {
    if (e.type !== 'message') continue;
    const content = (e.message as { role?: string; content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const block of content as { type?: string; name?: unknown; arguments?: unknown }[]) {
      if (block?.type !== 'toolCall' || typeof block.name !== 'string' || typeof block.arguments !== 'object' || block.arguments === null) continue;
      const paths = pathsOf(block.name, block.arguments as Record<string, unknown>);
      if (paths.length === 0) continue;
      const id = turn(e);
      if (id === null) continue;
      const set = out.get(id) ?? new Set<string>();
      for (const p of paths) set.add(isAbsolute(p) ? p : resolve(view.cwd, p));
      out.set(id, set);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}
