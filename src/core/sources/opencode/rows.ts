// OpenCode's sessions as its two storage layouts both hold them: a session (its info), its messages (each a JSON
// object: role, time, parentID, …) and their parts (text, tool, patch, step-start/-finish, …). Read from opencode.db
// (db-rows.ts) or the older storage/ tree (json-rows.ts) into these, and merged here: a session found in both (the
// database is what OpenCode migrated the JSON into) is the database's, with anything only the JSON still has added.
export type Json = Record<string, unknown>;

export interface OcRevert {
  messageID: string;
  partID?: string;
  snapshot?: string;
}

export interface OcSessionInfo {
  id: string;
  projectId?: string;
  parentId?: string;
  directory: string;
  title: string;
  createdMs: number;
  updatedMs: number;
  revert?: OcRevert;
  /** The model the session last used (`providerID/modelID`). */
  model?: string;
}

export interface OcMessage {
  id: string;
  sessionId: string;
  createdMs: number;
  data: Json;
}

export interface OcPart {
  id: string;
  messageId: string;
  data: Json;
}

export interface OcSessionRows {
  info: OcSessionInfo;
  /** In id order, which is creation order. */
  messages: OcMessage[];
  /** By message id, each in id order. */
  parts: Map<string, OcPart[]>;
}

export const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** OpenCode's ids (`ses_`, `msg_`, `prt_` + a time-ordered suffix): used only as ids, never as paths. */
export const OC_ID = /^(ses|msg|prt)_[A-Za-z0-9]{1,64}$/;

export function parseRevert(v: unknown): OcRevert | undefined {
  const r = obj(v);
  const messageID = str(r?.messageID);
  if (!r || !messageID || !OC_ID.test(messageID)) return undefined;
  const partID = str(r.partID);
  const snapshot = str(r.snapshot);
  return { messageID, ...(partID && OC_ID.test(partID) ? { partID } : {}), ...(snapshot ? { snapshot } : {}) };
}

export function byId<T extends { id: string }>(a: T, b: T): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** One session from both layouts: the database's rows first, the JSON's where the database has none of that id. */
export function mergeSessionRows(fromDb: OcSessionRows | undefined, fromJson: OcSessionRows | undefined): OcSessionRows | undefined {
  if (!fromDb || !fromJson) return fromDb ?? fromJson;
  const messages = new Map(fromDb.messages.map((m) => [m.id, m]));
  for (const m of fromJson.messages) if (!messages.has(m.id)) messages.set(m.id, m);
  const parts = new Map<string, OcPart[]>();
  for (const id of messages.keys()) {
    const seen = new Map<string, OcPart>();
    for (const p of fromDb.parts.get(id) ?? []) seen.set(p.id, p);
    for (const p of fromJson.parts.get(id) ?? []) if (!seen.has(p.id)) seen.set(p.id, p);
    if (seen.size) parts.set(id, [...seen.values()].sort(byId));
  }
  return { info: fromDb.info, messages: [...messages.values()].sort(byId), parts };
}
