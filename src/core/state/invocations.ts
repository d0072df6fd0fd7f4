// The one-anchor rule (docs/ARCHITECTURE.md): a user message id is the invocation id. The invocation of an entry is
// the nearest user message at or before it on the path.
import { isCustomEntry } from '../branches/records';
import type { SessionEntry } from '../session/types';

export function isUserMessage(entry: SessionEntry | undefined): boolean {
  return entry?.type === 'message' && (entry as { message?: { role?: unknown } }).message?.role === 'user';
}

/** The invocation id of path[index] (null before the first user message). */
export function invocationAt(path: readonly SessionEntry[], index: number): string | null {
  for (let i = Math.min(index, path.length - 1); i >= 0; i--) if (isUserMessage(path[i])) return path[i]!.id;
  return null;
}

/**
 * Where an invocation starts on the path: its user message, or an earlier record that names it explicitly
 * (a host may record state for an invocation just before appending its message). Everything from here on
 * belongs to the invocation or later ones. -1 when the invocation is not on the path.
 */
export function invocationStart(path: readonly SessionEntry[], invocationId: string): number {
  const anchor = path.findIndex((e) => e.id === invocationId);
  if (anchor < 0) return -1;
  let start = anchor;
  for (let i = anchor - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (isCustomEntry(entry) && (entry.data as { invocationId?: unknown } | undefined)?.invocationId === invocationId) start = i;
  }
  return start;
}
