// "belongs to a different chat" (docs/ARCHITECTURE.md, branches and checkpoints) needs to know whether an unknown id exists in another session. Only the
// error path asks, so a plain scan of the sibling session files (same folder) is cheap enough and needs no index.
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The id of another session in the same folder that has an entry `messageId`, or undefined. */
export async function findMessageInSiblingSessions(sessionFile: string, messageId: string): Promise<string | undefined> {
  const dir = dirname(sessionFile);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  const needle = JSON.stringify(messageId);
  for (const name of names) {
    if (!name.endsWith('.jsonl') || name === basename(sessionFile)) continue;
    let text: string;
    try {
      text = await readFile(join(dir, name), 'utf8');
    } catch {
      continue;
    }
    if (!text.includes(needle)) continue;
    let sessionId: string | undefined;
    for (const line of text.split('\n')) {
      if (!line.includes(needle) && sessionId !== undefined) continue;
      try {
        const value = JSON.parse(line) as { type?: unknown; id?: unknown };
        if (value.type === 'session' && typeof value.id === 'string') sessionId = value.id;
        else if (value.id === messageId && value.type !== 'title') return sessionId ?? name;
      } catch {
        // a corrupt line in someone else's file is not our concern here
      }
    }
  }
  return undefined;
}
