// Real SessionManagers on temp files, and a "naive pi reader": parse the JSONL, take the last entry as the leaf,
// build the context from that, exactly what pi and oh-my-pi do on load.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSessionContext, SessionManager } from '../../../src/core/session';
import type { SessionContext, SessionEntry } from '../../../src/core/session/types';

const opened: SessionManager[] = [];

/** A temp agent-rewind home; every session opened through this module is closed and the folder removed after. */
export async function withTempHome<T>(fn: (home: string) => Promise<T>): Promise<T> {
  const home = await mkdtemp(join(tmpdir(), 'agent-rewind-branches-'));
  try {
    return await fn(home);
  } finally {
    for (const s of opened.splice(0)) await s.close().catch(() => undefined);
    await rm(home, { recursive: true, force: true });
  }
}

export function newSession(home: string, cwd = '/work/project'): SessionManager {
  const s = SessionManager.create(cwd, { home, deferUntilAssistant: false });
  opened.push(s);
  return s;
}

export async function openSession(file: string, home: string): Promise<SessionManager> {
  const s = await SessionManager.open(file, { home, deferUntilAssistant: false });
  opened.push(s);
  return s;
}

export async function reopen(session: SessionManager, home: string): Promise<SessionManager> {
  await session.flush();
  return openSession(session.sessionFile!, home);
}

export function user(text: string) {
  return { role: 'user', content: text, timestamp: 1 };
}
export function assistant(text: string) {
  return { role: 'assistant', content: [{ type: 'text', text }], provider: 'test', model: 'm', timestamp: 2 };
}

/** Every line is JSON, the first is the header, every entry has the session-file fields. */
export async function readAsPi(file: string): Promise<{ entries: SessionEntry[]; leafId: string | null; context: SessionContext }> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l.length > 0);
  const values = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const headerAt = values[0]?.type === 'title' ? 1 : 0;
  if (values[headerAt]?.type !== 'session') throw new Error('first line is not a session header');
  const entries = values.slice(headerAt + 1) as SessionEntry[];
  for (const e of entries) {
    if (typeof e.id !== 'string' || !('parentId' in e) || typeof e.timestamp !== 'string' || typeof e.type !== 'string') {
      throw new Error(`not a session-file entry: ${JSON.stringify(e)}`);
    }
  }
  const leafId = entries.length ? entries[entries.length - 1]!.id : null;
  return { entries, leafId, context: buildSessionContext(entries, leafId) };
}

export function texts(context: SessionContext): string[] {
  return context.messages.map((m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((b) => ('text' in b ? b.text : b.type)).join('')));
}
