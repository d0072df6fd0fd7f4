// Our own record of the OpenCode forks "Rewind to here" made. OpenCode's fork (POST /session/<id>/fork, fork.ts)
// creates a session that names no origin: 1.18.33's Session.fork gives it only a "<title> (fork #n)" title, no
// parent_id (that column is for a task's child sessions), and we never write into its database. So the adapter keeps,
// in the agent-rewind home, one line per fork: the new session, the session it was forked from and the message it was
// forked at; the listing and the fork's view name the origin from it, as other agents' forks name theirs.
// <home>/opencode/forks.jsonl; one appended line per fork (one write, so concurrent writers do not interleave); lines
// that are not valid records are skipped; read again only when the file changed.
import { appendFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readRegularFileSync } from '../../agent-files';
import { parseJsonlRecords } from '../jsonl-records';
import { OC_ID } from './rows';

const id = z.string().regex(OC_ID);

export const openCodeForkRecordSchema = z.object({
  v: z.literal(1),
  /** The fork OpenCode created. */
  sessionId: id,
  /** The session it was forked from. */
  originSessionId: id,
  /** The origin's user message it was forked at: the fork holds what came before it. */
  atMessageId: id,
  /** ISO time of the fork. */
  at: z.string().max(64),
});
export type OpenCodeForkRecord = z.infer<typeof openCodeForkRecordSchema>;

export function openCodeForksFile(home: string): string {
  return join(home, 'opencode', 'forks.jsonl');
}

export class OpenCodeForkRecords {
  readonly file: string;
  #key = '';
  #bySession = new Map<string, OpenCodeForkRecord>();

  constructor(home: string) {
    this.file = openCodeForksFile(home);
  }

  add(record: OpenCodeForkRecord): void {
    const line = JSON.stringify(openCodeForkRecordSchema.parse(record)) + '\n';
    mkdirSync(join(this.file, '..'), { recursive: true });
    appendFileSync(this.file, line);
  }

  /** The record of the fork `sessionId`, if we made it (the last record of it wins). */
  of(sessionId: string): OpenCodeForkRecord | undefined {
    this.#refresh();
    return this.#bySession.get(sessionId);
  }

  #refresh(): void {
    let key: string;
    try {
      const st = statSync(this.file);
      key = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      key = '-';
    }
    if (key === this.#key) return;
    this.#key = key;
    this.#bySession = new Map();
    let text: string;
    try {
      text = readRegularFileSync(this.file).toString('utf8');
    } catch {
      return; // none yet, or not a regular file: no fork of ours is known
    }
    for (const record of parseJsonlRecords(text, openCodeForkRecordSchema)) this.#bySession.set(record.sessionId, record);
  }
}
