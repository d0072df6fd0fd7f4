// The records agent-rewind keeps beside the agents' sessions (prompt records, OpenCode forks, VS Code chat's late
// snapshots): JSONL files appended one line per record, read back through a schema. A line cut short by a crash, a
// damaged one or one of another shape is skipped, never an error: the rest of the file still counts.
import type { z } from 'zod';

/** The lines of `text` that are records of `schema`, in file order. */
export function parseJsonlRecords<S extends z.ZodType>(text: string, schema: S): z.infer<S>[] {
  const out: z.infer<S>[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      continue;
    }
    const r = schema.safeParse(raw);
    if (r.success) out.push(r.data);
  }
  return out;
}
