// readGeminiSession: one read of the session file (a `.jsonl` log, or the older `.json` document), one replay, one
// conversion, never a write. The project's root comes from Gemini's own project files (projects.json,
// `.project_root`, checked against the session's projectHash), else from the workspace folders Gemini listed in the
// session's context message; a path read from those is only compared, never opened.
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readRegularFile } from '../../agent-files';
import { parseBoundedJson } from '../../json-depth';
import { oneLine } from '../../transcript/transcript';
import { forkTitle } from '../fork-title';
import { obj, splitJsonLines } from '../jsonl-lines';
import { convertGeminiReplay } from './convert';
import { geminiHome, pickRoot, projectFolderOf, projectRootsOf, readProjects } from './home';
import { replayGeminiJson, replayGeminiLines, type GeminiReplay } from './replay';
import { GeminiSession } from './session';
import type { SessionViewLoadReport } from '../session-view';

export interface ReadGeminiSessionOptions {
  /** The `.gemini` folder (default: geminiHome()). */
  home?: string;
}

const TITLE_LENGTH = 200;

export async function readGeminiSession(file: string, opts: ReadGeminiSessionOptions = {}): Promise<GeminiSession> {
  let buf: Buffer;
  try {
    buf = await readRegularFile(file);
  } catch (err) {
    throw new Error(`Cannot read the Gemini CLI session ${file}: ${(err as Error).message}`);
  }
  const legacyJson = file.endsWith('.json');
  let replay: GeminiReplay;
  let report: SessionViewLoadReport;
  if (legacyJson) {
    let doc: Record<string, unknown> | undefined;
    try {
      doc = obj(parseBoundedJson(buf.toString('utf8')));
    } catch (err) {
      throw new Error(`Cannot read the Gemini CLI session ${file}: invalid JSON: ${(err as Error).message}`);
    }
    if (!doc) throw new Error(`Cannot read the Gemini CLI session ${file}: not a JSON object`);
    replay = replayGeminiJson(doc);
    report = { skipped: [] };
  } else {
    const { lines, skipped } = splitJsonLines(buf);
    replay = replayGeminiLines(lines);
    report = { skipped };
  }
  const tree = convertGeminiReplay(replay, { promptOffsets: legacyJson ? 'unknown' : 'lines' });
  const home = opts.home ?? geminiHome();
  const sessionId = replay.meta.sessionId ?? sessionIdFromName(file) ?? file;
  const cwd = (await rootOf(file, home, replay)) ?? dirname(file);
  const first = tree.prompts.find((p) => p.text.trim());
  const forkedFrom = replay.meta.forkedFrom;
  // a fork's first prompt is its origin's: named as the fork it is, unless Gemini summarised it
  const title = replay.meta.summary?.trim() || (first ? forkTitle(oneLine(first.text, TITLE_LENGTH), forkedFrom !== undefined) : 'Gemini CLI session');
  const createdAt = replay.meta.startTime ?? new Date((await stat(file)).birthtimeMs).toISOString();
  return new GeminiSession({
    sessionId,
    sessionRef: file,
    cwd,
    title,
    createdAt,
    tree,
    replay,
    report,
    legacyJson,
    ...(forkedFrom ? { forkedFrom: { sessionId: forkedFrom } } : {}),
  });
}

/** `session-<time>-<first 8 of the id>.jsonl`: the id's start, when the file says nothing. */
export function sessionIdFromName(file: string): string | undefined {
  return /session-.*-([0-9a-f]{8})\.jsonl?$/i.exec(file)?.[1];
}

/** The project root: Gemini's project files for the session's folder, else the context message's first folder. */
export async function rootOf(file: string, home: string, replay: GeminiReplay): Promise<string | undefined> {
  const folder = projectFolderOf(file, home);
  const candidates = folder ? await projectRootsOf(folder, await readProjects(home)) : [];
  candidates.push(...contextFolders(replay));
  return pickRoot(candidates, replay.meta.projectHash);
}

/** The folders Gemini's `<session_context>` message lists under "Workspace Directories". */
export function contextFolders(replay: GeminiReplay): string[] {
  for (const node of replay.nodes.slice(0, 4)) {
    const content = node.record.content;
    const text = Array.isArray(content) ? content.map((p) => String(obj(p)?.text ?? '')).join('\n') : typeof content === 'string' ? content : '';
    if (!text.includes('<session_context>')) continue;
    return folderList(text);
  }
  return [];
}

export function folderList(text: string): string[] {
  const at = text.indexOf('Workspace Directories');
  if (at < 0) return [];
  const out: string[] = [];
  for (const line of text.slice(at).split('\n').slice(1, 64)) {
    const m = /^\s*-\s+(\/.*|[A-Za-z]:\\.*)$/.exec(line);
    if (!m) break;
    out.push(m[1]!.trim());
  }
  return out;
}
