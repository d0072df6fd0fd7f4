// Writes a Codex fork that `codex resume <id>` / `codex exec resume <id>` continues: a NEW rollout in today's
// sessions/YYYY/MM/DD/ folder named as Codex names them (rollout-<UTC time>-<thread id>.jsonl, a UUIDv7 thread id as
// 0.169 makes), starting with a session_meta copied from the original with the new id and `forked_from_id` set,
// followed by the original's raw lines up to just before the turn of the chosen prompt. Codex replays those lines
// itself (rollbacks and compactions included), so the fork's history is exactly what Codex had before that prompt.
// The original is only read. The new file is written under a temporary name, fsynced, then linked into place
// (link fails rather than replace a file that exists).
import { writeNewFile } from '../write-new-file';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { readRegularFile } from '../../agent-files';
import { join } from 'node:path';
import { classifyItem } from './classify';
import { payloadOf, splitRolloutLines, str, type RawLine } from './lines';
import { homeOf } from './reader';
import type { CodexSegment, CodexSession } from './session';

export interface CodexForkOptions {
  /** The new thread id (default a fresh UUIDv7). */
  sessionId?: string;
  /** CODEX_HOME to write under (default: the one holding the original). */
  home?: string;
  now?: Date;
}

/** A UUIDv7 (48-bit Unix milliseconds, version 7, RFC 4122 variant, random rest), the form Codex 0.169 uses for ids. */
export function uuidV7(now = Date.now()): string {
  const b = randomBytes(16);
  const ms = BigInt(now);
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function rolloutFileName(id: string, at: Date): string {
  const iso = at.toISOString(); // 2026-11-23T23:11:36.696Z
  return `rollout-${iso.slice(0, 10)}T${iso.slice(11, 19).replace(/:/g, '-')}-${id}.jsonl`;
}

export async function writeCodexFork(
  session: CodexSession,
  userEntryId: string,
  opts: CodexForkOptions = {},
): Promise<{ sessionId: string; sessionRef: string }> {
  const prompt = session.promptOf(userEntryId);
  if (!prompt) throw new Error(`Cannot fork ${session.sessionRef} at ${userEntryId}: it is not a user prompt of this session`);
  if (prompt.prefix.startsWith('ref')) {
    throw new Error(
      `Cannot fork at ${userEntryId}: that prompt is in the session this one continues (${session.forkedFrom?.sessionId ?? 'its parent'}); rewind it there`,
    );
  }
  // where the history before the prompt lives: earlier segments of the thread (TUI backtracks), each up to where the
  // next continues, then the prompt's own file up to the prompt's turn
  const segments = session.segments();
  const own: CodexSegment | undefined = prompt.prefix === '' ? { prefix: '', file: session.sessionRef } : segments.find((s) => s.prefix === prompt.prefix);
  if (!own) throw new Error(`Cannot fork at ${userEntryId}: the file holding that prompt is gone`);
  const before = own.detached ? [] : segments.slice(0, own.prefix === '' ? segments.length : segments.indexOf(own)).filter((s) => !s.detached);
  const copied: string[] = [];
  let hasConversation = false;
  const take = (buf: Buffer, ls: readonly RawLine[]) => {
    for (const l of ls) {
      if (l.rec.type === 'session_meta') continue;
      if (l.rec.type === 'response_item' && classifyItem(payloadOf(l.rec)) !== 'hidden') hasConversation = true;
      copied.push(buf.toString('utf8', l.byteStart, l.byteEnd));
    }
  };
  for (const seg of before) {
    const buf = await readRegularFile(seg.file);
    const { lines } = splitRolloutLines(buf);
    take(buf, seg.cutByte === undefined ? lines : lines.filter((l) => l.byteEnd < seg.cutByte!));
  }
  const buf = await readRegularFile(own.file);
  const { lines } = splitRolloutLines(buf);
  const at = lines.findIndex((l) => l.line === prompt.line);
  if (at < 0) throw new Error(`Cannot fork at ${userEntryId}: the prompt is no longer in ${own.file}`);
  take(buf, lines.slice(0, turnStart(lines, at, prompt.turnId)));
  // the new session_meta is the session's own (its cwd, model provider, instructions), with a new id
  const meta = (own.prefix === '' ? lines : splitRolloutLines(await readRegularFile(session.sessionRef)).lines).find((l) => l.rec.type === 'session_meta');
  const inheritedPrompts = session.userPrompts().filter((p) => p.prefix.startsWith('ref')).length;
  if (!inheritedPrompts && !hasConversation) {
    throw new Error(`Cannot fork at ${userEntryId}: it is the first prompt of the session, so the fork would have no conversation before it`);
  }
  const now = opts.now ?? new Date();
  const sessionId = opts.sessionId ?? uuidV7(now.getTime());
  const stamp = now.toISOString();
  const metaPayload = {
    ...(meta ? payloadOf(meta.rec) : { cwd: session.cwd, originator: 'agent-rewind' }),
    id: sessionId,
    forked_from_id: session.sessionId,
    timestamp: stamp,
  } as Record<string, unknown>;
  if (typeof metaPayload.session_id === 'string') metaPayload.session_id = sessionId;
  // the fork holds its whole history itself: no segment of the original to continue from
  delete metaPayload.history_base;
  const head = JSON.stringify({ timestamp: stamp, type: 'session_meta', payload: metaPayload });
  const text = [head, ...copied].join('\n') + '\n';
  const home = opts.home ?? homeOf(session.sessionRef);
  const dir = join(home, 'sessions', stamp.slice(0, 4), stamp.slice(5, 7), stamp.slice(8, 10));
  await mkdir(dir, { recursive: true });
  const sessionRef = join(dir, rolloutFileName(sessionId, now));
  await writeNewFile(dir, sessionRef, text);
  return { sessionId, sessionRef };
}

/** The first line of the prompt's turn (its task_started / turn_context), so the fork ends with the turn before. */
function turnStart(lines: readonly RawLine[], at: number, turnId: string | undefined): number {
  let start = at;
  for (let i = at - 1; i >= 0; i--) {
    const rec = lines[i]!.rec;
    const p = payloadOf(rec);
    const t = str(p.turn_id);
    const isStart = rec.type === 'turn_context' || (rec.type === 'event_msg' && (p.type === 'task_started' || p.type === 'turn_started'));
    const isEnd = rec.type === 'event_msg' && (p.type === 'task_complete' || p.type === 'turn_complete' || p.type === 'turn_aborted');
    if (isEnd || (isStart && turnId !== undefined && t !== undefined && t !== turnId)) break;
    if (isStart) {
      start = i;
      if (turnId === undefined) break;
    }
  }
  return start;
}
