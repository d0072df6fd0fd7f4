// Writes a Claude Code fork the way `claude --resume <id> --fork-session` does, so Claude Code itself can resume it:
// a new <uuid>.jsonl in the same project folder holding the raw lines from the root to just before a prompt, uuids
// kept, sessionId rewritten, each marked forkedFrom. The original is only read. The new file is written under a
// temporary name, fsynced, then linked into place (link fails rather than replace a file that exists).
import { readRegularFile } from '../../agent-files';
import { writeNewFile } from '../write-new-file';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { classifyLine } from './classify';
import { splitClaudeLines, str, type RawLine } from './lines';
import { rawParentOf } from './normalize';
import type { ClaudeSession } from './session';

export interface ClaudeForkOptions {
  /** The new session's id; default a random uuid v4. */
  sessionId?: string;
}

export async function writeClaudeFork(
  session: ClaudeSession,
  userEntryId: string,
  opts: ClaudeForkOptions = {},
): Promise<{ sessionId: string; sessionRef: string }> {
  const promptId = session.getEntry(userEntryId)?.id;
  if (promptId === undefined || !session.userPrompts().some((p) => p.entryId === promptId)) {
    throw new Error(`Cannot fork ${session.sessionRef} at ${userEntryId}: it is not a user prompt of this session`);
  }
  const buf = await readRegularFile(session.sessionRef);
  const { lines } = splitClaudeLines(buf);
  const copied = linesBefore(lines, promptId);
  if (copied === undefined) throw new Error(`Cannot fork at ${promptId}: the prompt is no longer in ${session.sessionRef}`);
  if (!copied.some((l) => classifyLine(l.rec) !== 'hidden')) {
    throw new Error(`Cannot fork at ${promptId}: it is the first prompt of the session, so the fork would have no conversation before it`);
  }
  const sessionId = opts.sessionId ?? randomUUID();
  const text = copied.map((l) => forkLine(buf, l, sessionId, session.sessionId)).join('\n') + '\n';
  const dir = dirname(session.sessionRef);
  const sessionRef = join(dir, `${sessionId}.jsonl`);
  await writeNewFile(dir, sessionRef, text);
  return { sessionId, sessionRef };
}

/** A copied line: the record with the fork's sessionId and its forkedFrom mark. A line the reader holds with a part
 *  kept as text (nested deeper than MAX_JSON_DEPTH) is copied as its own bytes with the two keys appended instead,
 *  which JSON readers (Claude Code's included) take over the earlier sessionId, so nothing of it is rewritten. */
function forkLine(buf: Buffer, l: RawLine, sessionId: string, originId: string): string {
  const forkedFrom = { sessionId: originId, messageUuid: l.rec.uuid };
  if (!l.capped) return JSON.stringify({ ...l.rec, sessionId, forkedFrom });
  const raw = buf.toString('utf8', l.byteStart, l.byteEnd).trimEnd();
  return `${raw.slice(0, -1)},"sessionId":${JSON.stringify(sessionId)},"forkedFrom":${JSON.stringify(forkedFrom)}}`;
}

/** The lines on the raw graph path root → the prompt's parent, in file order (compact boundaries followed through
 *  their logical parent; hidden lines on the path kept). Undefined when the prompt's line is not in the file. */
function linesBefore(lines: readonly RawLine[], promptUuid: string): RawLine[] | undefined {
  const byUuid = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const u = str(lines[i]!.rec.uuid);
    if (u && !byUuid.has(u) && lines[i]!.rec.isSidechain !== true) byUuid.set(u, i);
  }
  let at = byUuid.get(promptUuid);
  if (at === undefined) return undefined;
  const path: number[] = [];
  // parents come earlier in the file: a parent at or after its child is absent, which also stops any cycle
  for (;;) {
    const parent = rawParentOf(lines[at]!.rec);
    const next = parent === null ? undefined : byUuid.get(parent);
    if (next === undefined || next >= at) break;
    path.push(next);
    at = next;
  }
  return path.reverse().map((i) => lines[i]!);
}
