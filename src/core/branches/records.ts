// The records that name branches and checkpoints. They live in the session file as `custom` entries, which
// pi's context building ignores, so the file stays a plain session-file session. Everything read back is validated:
// a malformed record (a hand edit, another tool's bug) is skipped with a warning, never thrown on.
import { z } from 'zod';
import type { CustomEntry, SessionEntry } from '../session/types';

export const BRANCH_RECORD = 'agent-rewind/branch';
export const CHECKPOINT_RECORD = 'agent-rewind/checkpoint';
/** Written by the state rewind (docs/ARCHITECTURE.md, state and artifacts); it moves the active branch too, so branch derivation reads it. */
export const REWIND_RECORD = 'agent-rewind/rewind';

export type Warn = (message: string) => void;

const branchRefSchema = z.object({
  name: z.string().min(1),
  branchId: z.string().min(1),
  /** The last message on the branch when it was left (null: the branch had no message yet). */
  headId: z.string().nullable(),
  /** The entry the branch's path ends at (records after the head message included). */
  leafId: z.string().nullable(),
});
export type BranchRef = z.infer<typeof branchRefSchema>;

/** A move of the active branch: the record is a child of the new branch's leaf, so it becomes the file's last entry. */
export const branchMoveSchema = z
  .object({
    op: z.enum(['create', 'switch']),
    name: z.string().min(1),
    branchId: z.string().min(1),
    headId: z.string().nullable(),
    createdAt: z.number().finite(),
    /** The branch that was active before, with the head and leaf it had when it was left. */
    from: branchRefSchema.optional(),
  })
  .passthrough();
export type BranchMove = z.infer<typeof branchMoveSchema>;

export const checkpointRecordSchema = z.discriminatedUnion('op', [
  z
    .object({ op: z.literal('set'), name: z.string().min(1), checkpointId: z.string().min(1), messageId: z.string().min(1), createdAt: z.number().finite() })
    .passthrough(),
  z.object({ op: z.literal('delete'), name: z.string().min(1) }).passthrough(),
  z.object({ op: z.literal('rename'), name: z.string().min(1), newName: z.string().min(1) }).passthrough(),
]);
export type CheckpointRecord = z.infer<typeof checkpointRecordSchema>;

export function isCustomEntry(entry: SessionEntry, customType?: string): entry is CustomEntry {
  return entry.type === 'custom' && typeof entry.customType === 'string' && (customType === undefined || entry.customType === customType);
}

/** Parses `data` with `schema`; on failure warns once and returns undefined. */
export function readRecord<T>(entry: CustomEntry, schema: z.ZodType<T>, warn: Warn): T | undefined {
  const parsed = schema.safeParse(entry.data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  warn(`Ignoring malformed ${entry.customType} record ${entry.id}: ${issue ? `${issue.path.join('.') || 'data'}: ${issue.message}` : 'invalid'}`);
  return undefined;
}

/** The branch move an entry carries, if any: a branch record, or the `branch` field of a state-rewind record. */
export function readBranchMove(entry: SessionEntry, warn: Warn): BranchMove | undefined {
  if (!isCustomEntry(entry)) return undefined;
  if (entry.customType === BRANCH_RECORD) return readRecord(entry, branchMoveSchema, warn);
  if (entry.customType === REWIND_RECORD) {
    const data = entry.data as { branch?: unknown } | undefined;
    if (data === null || typeof data !== 'object' || data.branch === undefined) return undefined;
    const parsed = branchMoveSchema.safeParse(data.branch);
    if (parsed.success) return parsed.data;
    warn(`Ignoring malformed branch in ${REWIND_RECORD} record ${entry.id}`);
  }
  return undefined;
}

/** Warnings are reported once per message, so re-deriving on every read does not flood the log. */
export function onceWarn(sink: Warn = (m) => console.warn(`agent-rewind: ${m}`)): Warn {
  const seen = new Set<string>();
  return (message) => {
    if (seen.has(message)) return;
    seen.add(message);
    sink(message);
  };
}
