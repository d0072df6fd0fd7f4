// readVsChatSession: one read of a chat session file (the mutation log, or a whole `.json` session of VS Code before
// 1.109), replayed and converted into the session model, never a write. The prompt records of our hooks are read from
// the agent-rewind home and tied to the requests (prompt-records.ts).
import { stat } from 'node:fs/promises';
import { readRegularFile } from '../../agent-files';
import { parseBoundedJson } from '../../json-depth';
import { oneLine } from '../../transcript/transcript';
import { obj, str, type JsonRecord } from '../jsonl-lines';
import { chooseFolder, editingStatePaths, pathsNamedIn, workspaceJsonFolder } from './attribution';
import { convertChat } from './convert';
import { replayMutationLog, type ReplayedLog } from './mutation-log';
import { matchPromptRecords, readVsPromptRecords } from './prompt-records';
import { VsChatSession } from './session';
import { editingFolderOf, sessionIdOfFile, storageFolderOf } from './storage-folders';

export interface ReadVsChatOptions {
  /** The agent-rewind home (our hooks' prompt records). */
  home: string;
  /** Open workspace folders: a session is placed in the one its paths are in. */
  roots?: readonly string[];
  /** The folder the session's window had open, when the caller knows it (the extension's own window). */
  windowFolder?: string;
}

const TITLE_LENGTH = 200;

/** The session's state from a log or an old whole-JSON file. */
export function replayChatFile(file: string, buf: Buffer): ReplayedLog {
  if (!file.endsWith('.json')) return replayMutationLog(buf);
  try {
    const v = obj(parseBoundedJson(buf.toString('utf8').replace(/^\uFEFF/, '')));
    return v
      ? { state: v, removed: [], skipped: [], tornBytes: 0 }
      : { state: undefined, removed: [], skipped: [{ line: 1, reason: 'not a JSON object' }], tornBytes: 0 };
  } catch (err) {
    // an old session file is rewritten whole: one being written reads again at its next change
    return { state: undefined, removed: [], skipped: [{ line: 1, reason: `invalid JSON: ${(err as Error).message}` }], tornBytes: 0 };
  }
}

export function titleOf(state: JsonRecord | undefined): string | undefined {
  const custom = str(state?.customTitle)?.trim();
  if (custom) return oneLine(custom, TITLE_LENGTH);
  for (const r of Array.isArray(state?.requests) ? (state.requests as unknown[]) : []) {
    const text = str(obj(obj(r)?.message)?.text)?.trim();
    if (text) return oneLine(text, TITLE_LENGTH);
  }
  return undefined;
}

export async function readVsChatSession(file: string, opts: ReadVsChatOptions): Promise<VsChatSession> {
  let buf: Buffer;
  try {
    buf = await readRegularFile(file);
  } catch (err) {
    throw new Error(`Cannot read the VS Code chat session ${file}: ${(err as Error).message}`);
  }
  const replayed = replayChatFile(file, buf);
  if (!replayed.state) {
    const why = replayed.skipped[0]?.reason ?? (replayed.tornBytes ? 'its first line is still being written' : 'it is empty');
    throw new Error(`Cannot read the VS Code chat session ${file}: ${why}`);
  }
  const state = replayed.state;
  const tree = convertChat(state, replayed.removed);
  const sessionId = str(state.sessionId) ?? sessionIdOfFile(file);
  const storage = storageFolderOf(file);
  const editingFolder = editingFolderOf(file);
  const windowFolder = opts.windowFolder ?? (storage ? await workspaceJsonFolder(storage) : undefined);
  const named = pathsNamedIn(state);
  if (!windowFolder && named.bases.length === 0) named.files.push(...(await editingStatePaths(editingFolder)));
  const cwd = chooseFolder({ ...(windowFolder ? { windowFolder } : {}), named, roots: opts.roots ?? [] }) ?? storage ?? file;
  const created = typeof state.creationDate === 'number' ? state.creationDate : (await stat(file)).birthtimeMs;
  return new VsChatSession({
    sessionId,
    sessionRef: file,
    cwd,
    title: titleOf(state) ?? 'VS Code chat',
    createdAt: new Date(created).toISOString(),
    report: { skipped: replayed.skipped },
    tree,
    hookKeys: matchPromptRecords(readVsPromptRecords(opts.home, sessionId), tree.requests),
    ...(editingFolder ? { editingFolder } : {}),
  });
}
