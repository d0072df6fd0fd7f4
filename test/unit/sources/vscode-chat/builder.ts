// Hand-written VS Code chat session logs, shaped like what VS Code 1.139 writes (fields trimmed to what matters):
// `{kind:0,v}` the whole state, `{kind:1,k,v}` set, `{kind:2,k,v?,i?}` push with an optional cut, `{kind:3,k}` delete.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Json = Record<string, unknown>;

export const SESSION_ID = '3b1f0c2e-7d4a-4e8b-9c1d-2a3b4c5d6e7f';
export const T0 = Date.parse('2026-11-27T09:00:00.000Z');

export function initialState(extra: Json = {}): Json {
  return {
    version: 3,
    creationDate: T0,
    initialLocation: 'panel',
    responderUsername: '',
    sessionId: SESSION_ID,
    hasPendingEdits: false,
    requests: [],
    pendingRequests: [],
    inputState: { attachments: [], mode: { id: 'agent', kind: 'agent' }, inputText: '', selections: [], contrib: {} },
    ...extra,
  };
}

export function request(n: number, text: string, opts: { folder?: string; response?: unknown[]; at?: number } = {}): Json {
  return {
    requestId: `request_${String(n).padStart(4, '0')}`,
    timestamp: opts.at ?? T0 + n * 60_000,
    message: { text, parts: [{ kind: 'text', text }] },
    variableData: { variables: [] },
    modelId: 'fakelm/fake-model',
    modeInfo: { kind: 'agent', isBuiltin: true },
    response: opts.response ?? [{ value: `answer ${n}`, supportThemeIcons: false, ...(opts.folder ? { baseUri: fileUri(opts.folder + '/') } : {}) }],
    responseId: `response_${n}`,
    modelState: { value: 1, completedAt: (opts.at ?? T0 + n * 60_000) + 5_000 },
  };
}

export function fileUri(path: string): Json {
  return { $mid: 1, fsPath: path, external: `file://${path}`, path, scheme: 'file' };
}

export const lines = (...entries: Json[]): string => entries.map((e) => JSON.stringify(e)).join('\n') + '\n';

/** A window storage folder under `<userData>/User/workspaceStorage/<id>` with one session log; returns the log path. */
export function plantSession(
  userData: string,
  windowId: string,
  text: string,
  opts: { workspaceJson?: string; sessionId?: string; ext?: string } = {},
): string {
  const storage = join(userData, 'User', 'workspaceStorage', windowId);
  mkdirSync(join(storage, 'chatSessions'), { recursive: true });
  if (opts.workspaceJson) writeFileSync(join(storage, 'workspace.json'), JSON.stringify({ folder: `file://${opts.workspaceJson}` }));
  const file = join(storage, 'chatSessions', `${opts.sessionId ?? SESSION_ID}${opts.ext ?? '.jsonl'}`);
  writeFileSync(file, text);
  return file;
}
