import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Session ids are uuid v7: time-ordered, so file names and ids sort by creation. */
export function newSessionId(): string {
  return uuidv7();
}

/** An 8-lowercase-hex entry id not yet in `taken`. */
export function newEntryId(taken: { has(id: string): boolean }): string {
  for (;;) {
    const id = randomBytes(4).toString('hex');
    if (!taken.has(id)) return id;
  }
}

/** Ids callers may choose themselves (e.g. `append --id`): short, and safe inside file names. */
export const CUSTOM_ENTRY_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
