// Session state and artifact records (docs/ARCHITECTURE.md, state and artifacts), stored as `custom` entries in the session file.
// A state delta maps keys to new values; `null` deletes the key (so a key cannot hold JSON null, as in ADK).
// Keys are scoped by prefix: `app:`, `user:`, or none (the session itself).
import { z } from 'zod';
import { branchMoveSchema, REWIND_RECORD } from '../branches/records';

export { REWIND_RECORD };
export const STATE_RECORD = 'agent-rewind/state';
export const ARTIFACT_RECORD = 'agent-rewind/artifact';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** Plain JSON (finite numbers, no undefined/functions/class instances). A recursive zod union does the same but
 *  builds an error for every failed branch, which made folding long sessions ~50x slower. */
export function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (depth > 200) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1));
  const proto: unknown = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value as object).every((v) => isJsonValue(v, depth + 1));
}
export const jsonValueSchema = z.custom<JsonValue>((v) => isJsonValue(v), { message: 'not a JSON value (null deletes a key)' });

export const stateDeltaSchema = z.record(z.string().min(1), jsonValueSchema);
export type StateDelta = Record<string, JsonValue>;

export const BLOB_REF = /^blob:sha256:[0-9a-f]{64}$/;
export const artifactBytesSchema = z.object({
  version: z.number().int().min(1),
  blob: z.string().regex(BLOB_REF),
  mimeType: z.string().min(1),
  size: z.number().int().min(0),
});

export const stateRecordSchema = z.object({ invocationId: z.string().nullable(), stateDelta: stateDeltaSchema }).passthrough();
export type StateRecord = z.infer<typeof stateRecordSchema>;

export const artifactRecordSchema = artifactBytesSchema.extend({ name: z.string().min(1), invocationId: z.string().nullable() }).passthrough();
export type ArtifactRecord = z.infer<typeof artifactRecordSchema>;

/** An artifact restored by a rewind: the old bytes saved under a new version number. null removes the artifact. */
export const restoredArtifactSchema = artifactBytesSchema.extend({ restoredFrom: z.number().int().min(1) });
export type RestoredArtifact = z.infer<typeof restoredArtifactSchema>;

export const rewindRecordSchema = z
  .object({
    rewindBeforeInvocationId: z.string().min(1),
    stateDelta: stateDeltaSchema,
    artifactDelta: z.record(z.string().min(1), restoredArtifactSchema.nullable()),
    /** The rewind starts a new named branch (the branch naming of docs/ARCHITECTURE.md), so the rewound invocations stay reachable by name. */
    branch: branchMoveSchema.optional(),
  })
  .passthrough();
export type RewindRecord = z.infer<typeof rewindRecordSchema>;

export type StateScope = 'app' | 'user' | 'session';
export function scopeOf(key: string): StateScope {
  if (key.startsWith('app:')) return 'app';
  if (key.startsWith('user:')) return 'user';
  return 'session';
}
