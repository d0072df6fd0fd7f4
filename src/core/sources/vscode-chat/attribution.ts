// Which workspace folder a chat session worked in. VS Code does not write it into the session: the window's storage
// folder has `workspace.json` ({folder: <uri>}) in most versions, and otherwise the session's own records carry URIs
// inside it: the folder its responses' links are relative to (markdown `baseUri`), the files its edits touched, and
// the files its editing state (chatEditingSessions/<id>/state.json) tracks.
import { join } from 'node:path';
import { readRegularFile } from '../../agent-files';
import { parseBoundedJson } from '../../json-depth';
import { obj, type JsonRecord } from '../jsonl-lines';
import { isInside } from '../workspace-paths';
import { uriPath } from './uris';

const MAX_SIDE_FILE_BYTES = 16 * 1024 * 1024;

/** The folder the window had open, from its storage folder's workspace.json (a multi-root workspace file: none). */
export async function workspaceJsonFolder(storage: string): Promise<string | undefined> {
  const rec = await readSmallJson(join(storage, 'workspace.json'));
  return uriPath(rec?.folder);
}

/** A JSON object file of VS Code's beside the sessions, when it is one and not huge (else undefined). */
export async function readSmallJson(file: string): Promise<JsonRecord | undefined> {
  try {
    const buf = await readRegularFile(file);
    if (buf.length > MAX_SIDE_FILE_BYTES) return undefined;
    return obj(parseBoundedJson(buf.toString('utf8')));
  } catch {
    return undefined;
  }
}

export interface NamedPaths {
  /** Folders the responses' links are relative to. */
  bases: string[];
  /** Files the session edited or tracked. */
  files: string[];
}

/** The paths a session's records name (bounded walk over its requests' responses and edit events). */
export function pathsNamedIn(state: JsonRecord | undefined): NamedPaths {
  const bases: string[] = [];
  const files: string[] = [];
  const requests = Array.isArray(state?.requests) ? (state.requests as unknown[]) : [];
  for (const r of requests) {
    const req = obj(r);
    if (!req) continue;
    for (const p of Array.isArray(req.response) ? (req.response as unknown[]) : []) {
      const part = obj(p);
      if (!part) continue;
      const base = uriPath(part.baseUri) ?? uriPath(obj(part.content)?.baseUri);
      if (base) bases.push(base);
      if (part.kind === 'textEditGroup' || part.kind === 'codeblockUri') {
        const f = uriPath(part.uri);
        if (f) files.push(f);
      }
    }
    for (const e of Array.isArray(req.editedFileEvents) ? (req.editedFileEvents as unknown[]) : []) {
      const f = uriPath(obj(e)?.uri);
      if (f) files.push(f);
    }
  }
  return { bases, files };
}

/** The files an editing session's state.json tracks. */
export async function editingStatePaths(editingFolder: string | undefined): Promise<string[]> {
  if (!editingFolder) return [];
  const rec = await readSmallJson(join(editingFolder, 'state.json'));
  if (!rec) return [];
  const out: string[] = [];
  for (const pair of Array.isArray(rec.initialFileContents) ? (rec.initialFileContents as unknown[]) : []) {
    const f = Array.isArray(pair) ? uriPath(pair[0]) : undefined;
    if (f) out.push(f);
  }
  const timeline = obj(rec.timeline);
  for (const op of Array.isArray(timeline?.operations) ? (timeline.operations as unknown[]) : []) {
    const f = uriPath(obj(op)?.uri);
    if (f) out.push(f);
  }
  for (const e of Array.isArray(obj(rec.recentSnapshot)?.entries) ? (obj(rec.recentSnapshot)!.entries as unknown[]) : []) {
    const f = uriPath(obj(e)?.resource);
    if (f) out.push(f);
  }
  return out;
}

/**
 * The folder the session worked in: the window's folder when known; else the workspace root its paths are in (links'
 * base first, then edited files); else the folder its links are relative to; else none.
 */
export function chooseFolder(opts: { windowFolder?: string; named: NamedPaths; roots: readonly string[] }): string | undefined {
  if (opts.windowFolder) return opts.windowFolder;
  const all = [...opts.named.bases, ...opts.named.files];
  for (const p of all) {
    const root = opts.roots.find((r) => isInside(p, r));
    if (root) return root;
  }
  return mostCommon(opts.named.bases.map((b) => b.replace(/[\\/]+$/, '') || b));
}

function mostCommon(items: readonly string[]): string | undefined {
  const count = new Map<string, number>();
  for (const i of items) count.set(i, (count.get(i) ?? 0) + 1);
  let best: string | undefined;
  for (const [k, n] of count) if (best === undefined || n > count.get(best)!) best = k;
  return best;
}
