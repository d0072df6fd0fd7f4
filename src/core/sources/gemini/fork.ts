// Writes a Gemini CLI fork that `gemini --resume <id>` continues: a NEW session file in the same project's chats/
// folder, named as Gemini names them (`session-<UTC minute>-<first 8 of the id>.jsonl`), starting with a metadata line
// for the new id (the original's projectHash, `forkedFrom` naming the original) followed by the original's lines up to
// just before the chosen prompt's record. Gemini replays those lines itself (`$set`, `$rewindTo` and updates
// included), so the fork's history is exactly what Gemini had when that prompt was sent. A `$set` of the session id
// among them is given the new id; every other line keeps its bytes. The original is only read. The file is written
// under a temporary name, fsynced, then linked into place (link fails rather than replace a file that exists).
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { readRegularFile } from '../../agent-files';
import { obj, splitJsonLines } from '../jsonl-lines';
import { writeNewFile } from '../write-new-file';
import { isMessageRecord } from './replay';
import type { GeminiSession } from './session';

export interface GeminiForkOptions {
  /** The new session id (default a fresh UUID, as Gemini makes them). */
  sessionId?: string;
  now?: Date;
}

export function sessionFileName(id: string, at: Date): string {
  const iso = at.toISOString(); // 2026-11-27T10:16:52.237Z
  return `session-${iso.slice(0, 10)}T${iso.slice(11, 16).replace(':', '-')}-${id.slice(0, 8)}.jsonl`;
}

export async function writeGeminiFork(
  session: GeminiSession,
  userEntryId: string,
  opts: GeminiForkOptions = {},
): Promise<{ sessionId: string; sessionFile: string }> {
  if (session.legacyJson) throw new Error(`Cannot fork ${session.sessionRef}: the old .json layout is not resumed by the current Gemini CLI`);
  const node = session.replay().byId.get(userEntryId);
  if (!session.promptOf(userEntryId) || !node?.own)
    throw new Error(`Cannot fork ${session.sessionRef} at ${userEntryId}: it is not a user prompt of this session`);
  const buf = await readRegularFile(session.sessionRef);
  const { lines } = splitJsonLines(buf);
  const at = lines.findIndex((l) => l.rec.id === userEntryId && isMessageRecord(l.rec));
  if (at < 0) throw new Error(`Cannot fork at ${userEntryId}: the prompt is no longer in ${session.sessionRef}`);
  const now = opts.now ?? new Date();
  const sessionId = opts.sessionId ?? randomUUID();
  const copied: string[] = [];
  let hasConversation = false;
  for (const l of lines.slice(0, at)) {
    const set = obj(l.rec.$set);
    if (set) {
      if (Array.isArray(set.messages) && set.messages.some((m) => session.promptOf(String(obj(m)?.id)))) hasConversation = true;
      if (typeof set.sessionId === 'string') {
        copied.push(JSON.stringify({ ...l.rec, $set: { ...set, sessionId } }));
        continue;
      }
    } else if (isMessageRecord(l.rec)) {
      if (session.promptOf(l.rec.id as string)) hasConversation = true;
    } else if (typeof l.rec.sessionId === 'string') continue; // a metadata line: the fork has its own
    copied.push(buf.toString('utf8', l.byteStart, l.byteEnd));
  }
  if (!hasConversation)
    throw new Error(`Cannot fork at ${userEntryId}: it is the first prompt of the session, so the fork would have no conversation before it`);
  const stamp = now.toISOString();
  const meta = {
    sessionId,
    ...(session.replay().meta.projectHash ? { projectHash: session.replay().meta.projectHash } : {}),
    startTime: stamp,
    lastUpdated: stamp,
    kind: 'main',
    forkedFrom: session.sessionId,
  };
  const dir = dirname(session.sessionRef);
  const sessionFile = join(dir, sessionFileName(sessionId, now));
  await writeNewFile(dir, sessionFile, [JSON.stringify(meta), ...copied].join('\n') + '\n');
  return { sessionId, sessionFile };
}
