// VS Code's chat session log (`workspaceStorage/<id>/chatSessions/<sessionId>.jsonl`, VS Code 1.109+): not the session
// itself but the mutations that build it, one JSON object a line, replayed here the way VS Code's own reader
// (objectMutationLog.ts, ObjectMutationLog.read) replays them:
//   {kind: 0, v}          the whole state (the first line; a compaction rewrites the file as one such line)
//   {kind: 1, k: path, v} set the value at the path
//   {kind: 2, k: path, v?, i?} push `v` onto the array at the path, after cutting it to length `i` when given
//   {kind: 3, k: path}    delete the value at the path
// Requests are keyed by `requestId`: VS Code writes a cut of `requests` when a request is removed (an edited and
// resent request, an undone one); the requests a cut removed are kept here as what they were, with the request they
// followed, so they can be shown as an abandoned branch. Lenient where VS Code is strict: a line that cannot apply is
// reported and skipped, a torn last line (a write in progress) is left for the next read.
import { forEachJsonLine, type JsonRecord } from '../jsonl-lines';

export type LogPath = (string | number)[];

/** Requests one mutation removed from the session. */
export interface RemovedRequests {
  /** The requestId of the request they followed (undefined: they were the first). */
  afterRequestId: string | undefined;
  /** The removed requests as they were, in order. */
  requests: JsonRecord[];
  /** 1-based line of the mutation. */
  line: number;
}

export interface ReplayedLog {
  /** The session as VS Code would load it (undefined: no usable initial line). */
  state: JsonRecord | undefined;
  removed: RemovedRequests[];
  skipped: { line: number; reason: string }[];
  /** Bytes of a torn last line (a write in progress), not replayed. */
  tornBytes: number;
}

const isRecord = (v: unknown): v is JsonRecord => v !== null && typeof v === 'object' && !Array.isArray(v);
const isPath = (k: unknown): k is LogPath => Array.isArray(k) && k.every((p) => typeof p === 'string' || typeof p === 'number');

/** The container a path's last key is in, or why there is none. */
function parentOf(state: JsonRecord, path: LogPath): { at: Record<string | number, unknown> } | { error: string } {
  let cur: unknown = state;
  for (let i = 0; i < path.length - 1; i++) {
    const next: unknown = (cur as Record<string | number, unknown>)[path[i]!];
    if (next === null || typeof next !== 'object') return { error: `no object at ${JSON.stringify(path.slice(0, i + 1))}` };
    cur = next;
  }
  return { at: cur as Record<string | number, unknown> };
}

function requestIds(state: JsonRecord | undefined): string[] {
  const reqs = state?.requests;
  return Array.isArray(reqs) ? reqs.map((r) => (isRecord(r) && typeof r.requestId === 'string' ? r.requestId : '')) : [];
}

/** Replays a whole log. Never throws. */
export function replayMutationLog(buf: Buffer): ReplayedLog {
  let state: JsonRecord | undefined;
  const removed: RemovedRequests[] = [];
  const skipped: { line: number; reason: string }[] = [];
  const scan = forEachJsonLine(buf, ({ rec, line }) => {
    const problem = applyEntry(rec, line);
    if (problem) skipped.push({ line, reason: problem });
  });
  return { state, removed, skipped: [...scan.skipped, ...skipped].sort((a, b) => a.line - b.line), tornBytes: scan.tornBytes };

  function applyEntry(e: JsonRecord, line: number): string | undefined {
    if (e.kind === 0) {
      if (!isRecord(e.v)) return 'initial state is not an object';
      noteRemoved(state, e.v, line);
      state = e.v;
      return undefined;
    }
    if (e.kind !== 1 && e.kind !== 2 && e.kind !== 3) return `unknown mutation kind ${JSON.stringify(e.kind)}`;
    if (!state) return 'a mutation before the initial state';
    if (!isPath(e.k)) return 'mutation without a path';
    const path = e.k;
    // only a mutation of the request list itself (not of one request's inside) can remove a request
    const touchesRequests = path[0] === 'requests' && path.length <= 2;
    const before = touchesRequests ? snapshotRequests(state) : undefined;
    const problem = e.kind === 2 ? push(state, path, e.v, e.i) : set(state, path, e.kind === 1 ? e.v : undefined);
    if (!problem && before) noteRemovedFrom(before, state, line);
    return problem;
  }

  function noteRemoved(prev: JsonRecord | undefined, next: JsonRecord, line: number): void {
    if (prev) noteRemovedFrom(snapshotRequests(prev), next, line);
  }

  function noteRemovedFrom(before: { ids: string[]; requests: unknown[] }, next: JsonRecord, line: number): void {
    const now = new Set(requestIds(next));
    let run: JsonRecord[] = [];
    let after: string | undefined;
    const flush = () => {
      if (run.length) removed.push({ afterRequestId: after, requests: run, line });
      run = [];
    };
    before.ids.forEach((id, i) => {
      const req = before.requests[i];
      if (id && now.has(id)) {
        flush();
        after = id;
      } else if (isRecord(req)) run.push(req);
    });
    flush();
  }
}

/** The request list as it is before a mutation (the array is cut in place, so its items are copied by reference). */
function snapshotRequests(state: JsonRecord): { ids: string[]; requests: unknown[] } {
  const reqs = state.requests;
  return { ids: requestIds(state), requests: Array.isArray(reqs) ? [...(reqs as unknown[])] : [] };
}

function set(state: JsonRecord, path: LogPath, value: unknown): string | undefined {
  // VS Code's reader leaves the state as it is for an empty path ("root replacement handled by caller"), and so do we
  if (path.length === 0) return undefined;
  const p = parentOf(state, path);
  if ('error' in p) return p.error;
  const key = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(p.at) && typeof key === 'number') p.at[key] = undefined;
    else delete p.at[key];
  } else p.at[key] = value;
  return undefined;
}

function push(state: JsonRecord, path: LogPath, values: unknown, cut: unknown): string | undefined {
  if (path.length === 0) return 'push without a path';
  if (values !== undefined && !Array.isArray(values)) return 'push of something that is not an array';
  if (cut !== undefined && (typeof cut !== 'number' || !Number.isInteger(cut) || cut < 0)) return `push with a bad cut index ${JSON.stringify(cut)}`;
  const p = parentOf(state, path);
  if ('error' in p) return p.error;
  const key = path[path.length - 1]!;
  const existing: unknown = p.at[key];
  if (existing !== undefined && existing !== null && !Array.isArray(existing)) return `push onto a value that is not an array at ${JSON.stringify(path)}`;
  const arr: unknown[] = Array.isArray(existing) ? existing : [];
  if (cut !== undefined && cut < arr.length) arr.length = cut;
  if (values) for (const v of values as unknown[]) arr.push(v);
  p.at[key] = arr;
  return undefined;
}
