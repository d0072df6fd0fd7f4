// What a session says about an anchor id, in the shape rewindFiles expects.
import type { SessionEntry } from '../session/types';
import type { AnchorCheck } from './types';

export interface SessionEntryLookup {
  getEntry(id: string): SessionEntry | undefined;
}

export function anchorCheckFor(session: SessionEntryLookup, anchorId: string, checkpointingEnabled: boolean): AnchorCheck {
  const entry = session.getEntry(anchorId);
  if (!entry) return { checkpointingEnabled, kind: 'missing', messageId: anchorId };
  const isUser = entry.type === 'message' && (entry as { message?: { role?: unknown } }).message?.role === 'user';
  return { checkpointingEnabled, kind: isUser ? 'user-message' : 'other-entry', messageId: anchorId };
}
