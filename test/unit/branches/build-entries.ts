// Hand-built session entries for tests of the pure derivations (no SessionManager involved).
import type { SessionEntry } from '../../../src/core/session/types';

export class EntryBuilder {
  readonly entries: SessionEntry[] = [];
  leaf: string | null = null;
  private clock = Date.parse('2026-01-01T00:00:00.000Z');

  private push(fields: Record<string, unknown>, id?: string): string {
    const entry = {
      id: id ?? `e${String(this.entries.length + 1).padStart(7, '0')}`,
      parentId: this.leaf,
      timestamp: new Date((this.clock += 1000)).toISOString(),
      ...fields,
    } as SessionEntry;
    this.entries.push(entry);
    this.leaf = entry.id;
    return entry.id;
  }
  user(text: string, id?: string): string {
    return this.push({ type: 'message', message: { role: 'user', content: text } }, id);
  }
  assistant(text: string, id?: string): string {
    return this.push({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text }] } }, id);
  }
  custom(customType: string, data: unknown, id?: string): string {
    return this.push({ type: 'custom', customType, data }, id);
  }
  at(id: string | null): this {
    this.leaf = id;
    return this;
  }
}
