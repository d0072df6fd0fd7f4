// The files VS Code's edit tools wrote for each request (SourceAdapter.filesWrittenByTurn), from VS Code's own records:
// the session log's response parts (the edits it applied, the code blocks it wrote into files, the model's calls of its
// file tools) and the editing state (chatEditingSessions/<id>/state.json: each operation, baseline and tracked entry
// names its request). Files a terminal command changed are in neither: VS Code does not track them.
import { join } from 'node:path';
import { obj, str, type JsonRecord } from '../jsonl-lines';
import { readSmallJson } from './attribution';
import { uriPath } from './uris';

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Copilot agent mode's file tools, as the model calls them (a `filePath` argument each); read_file has one too. */
const FILE_TOOLS = new Set(['create_file', 'replace_string_in_file', 'insert_edit_into_file', 'edit_notebook_file', 'create_new_jupyter_notebook']);

/** The files a request's response says VS Code edited: its edit groups, the code blocks written into files, its edited
 *  file events and its calls of the file tools (paths as stored, absolute). */
export function filesEditedByRequest(req: JsonRecord): string[] {
  const out = new Set<string>();
  const add = (p: string | undefined) => {
    if (p) out.add(p);
  };
  for (const raw of arr(req.response)) {
    const part = obj(raw);
    if (part?.kind === 'textEditGroup' || part?.kind === 'notebookEditGroup' || (part?.kind === 'codeblockUri' && part.isEdit === true)) add(uriPath(part.uri));
  }
  for (const e of arr(req.editedFileEvents)) add(uriPath(obj(e)?.uri));
  for (const round of arr(obj(obj(req.result)?.metadata)?.toolCallRounds)) {
    for (const c of arr(obj(round)?.toolCalls)) {
      const call = obj(c);
      const name = str(call?.name);
      if (!name) continue;
      let args: unknown = call!.arguments;
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          continue;
        }
      }
      if (FILE_TOOLS.has(name)) add(absolute(str(obj(args)?.filePath)));
      else if (name === 'multi_replace_string_in_file') for (const r of arr(obj(args)?.replacements)) add(absolute(str(obj(r)?.filePath)));
    }
  }
  return [...out];
}

/** A tool's file path when it is absolute (the agent's tools are given absolute paths; a relative one is not placed). */
function absolute(p: string | undefined): string | undefined {
  return p && (p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p)) ? p : undefined;
}

/** By request id, the files the session's editing state says its edits touched (both layouts: 1.139's timeline of
 *  operations and baselines, 1.100's linear history of stops), and the tracked entries' requests. */
export async function editingStateWrites(editingFolder: string | undefined): Promise<Map<string, string[]>> {
  const out = new Map<string, Set<string>>();
  const add = (requestId: unknown, uri: unknown) => {
    const id = str(requestId);
    const path = uriPath(uri);
    if (!id || !path) return;
    out.set(id, (out.get(id) ?? new Set()).add(path));
  };
  const rec = editingFolder ? await readSmallJson(join(editingFolder, 'state.json')) : undefined;
  const timeline = obj(rec?.timeline);
  for (const op of arr(timeline?.operations)) add(obj(op)?.requestId, obj(op)?.uri);
  for (const pair of arr(timeline?.fileBaselines)) {
    const b = Array.isArray(pair) ? obj(pair[1]) : undefined;
    add(b?.requestId, b?.uri);
  }
  for (const e of arr(obj(rec?.recentSnapshot)?.entries)) add(obj(obj(e)?.telemetryInfo)?.requestId, obj(e)?.resource);
  for (const h of arr(rec?.linearHistory)) {
    const id = obj(h)?.requestId;
    for (const stop of arr(obj(h)?.stops)) for (const e of arr(obj(stop)?.entries)) add(id, obj(e)?.resource);
    for (const e of arr(obj(h)?.postEdit)) add(id, obj(e)?.resource);
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}
