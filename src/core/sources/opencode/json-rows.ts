// OpenCode's older JSON layout under $XDG_DATA_HOME/opencode/storage/, read into rows.ts's shapes:
//   session/<projectID>/<sessionID>.json, message/<sessionID>/<messageID>.json, part/<messageID>/<partID>.json.
// Paths are built only from names that are OpenCode ids (no `..`, no separators) below the storage folder; a
// symlink, a FIFO or anything else that is not a folder or a regular file is passed over, and a file that does not
// parse (a torn write) is skipped and counted.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readRegularFile } from '../../agent-files';
import { parseBoundedJson } from '../../json-depth';
import { byId, num, obj, OC_ID, parseRevert, str, type Json, type OcMessage, type OcPart, type OcSessionInfo, type OcSessionRows } from './rows';

const PROJECT_DIR = /^[A-Za-z0-9_-]{1,128}$/;

async function entries(dir: string): Promise<{ dirs: string[]; files: string[] }> {
  try {
    const list = await readdir(dir, { withFileTypes: true });
    return { dirs: list.filter((d) => d.isDirectory()).map((d) => d.name), files: list.filter((d) => d.isFile()).map((d) => d.name) };
  } catch {
    return { dirs: [], files: [] };
  }
}

/** The ids of the `<id>.json` files in `dir` that are OpenCode ids. */
async function jsonIds(dir: string): Promise<string[]> {
  return (await entries(dir)).files
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -5))
    .filter((id) => OC_ID.test(id))
    .sort();
}

async function readJson(path: string): Promise<Json | undefined> {
  try {
    // a link is never followed, even one put where a session's file goes: it could lead out of OpenCode's folder
    if (!(await lstat(path)).isFile()) return undefined;
    return obj(parseBoundedJson((await readRegularFile(path)).toString('utf8')));
  } catch {
    return undefined;
  }
}

function sessionInfo(data: Json | undefined, id: string): OcSessionInfo | undefined {
  const directory = str(data?.directory);
  if (!data || !directory || (str(data.id) ?? id) !== id) return undefined;
  const time = obj(data.time);
  const revert = parseRevert(data.revert);
  const parentId = str(data.parentID);
  const projectId = str(data.projectID);
  return {
    id,
    directory,
    title: str(data.title) ?? '',
    createdMs: num(time?.created) ?? 0,
    updatedMs: num(time?.updated) ?? num(time?.created) ?? 0,
    ...(projectId ? { projectId } : {}),
    ...(parentId && OC_ID.test(parentId) ? { parentId } : {}),
    ...(revert ? { revert } : {}),
  };
}

/** The session file of that id (the first project folder holding one), without reading it. */
export async function jsonSessionFile(storageDir: string, sessionId: string): Promise<string | undefined> {
  if (!OC_ID.test(sessionId)) return undefined;
  const root = join(storageDir, 'session');
  for (const project of (await entries(root)).dirs.filter((d) => PROJECT_DIR.test(d))) {
    const file = join(root, project, `${sessionId}.json`);
    if ((await lstat(file).catch(() => undefined))?.isFile()) return file;
  }
  return undefined;
}

/** Every session file of the layout, as info (no messages). */
export async function listJsonSessions(storageDir: string): Promise<OcSessionInfo[]> {
  const root = join(storageDir, 'session');
  const out: OcSessionInfo[] = [];
  for (const project of (await entries(root)).dirs.filter((d) => PROJECT_DIR.test(d))) {
    for (const id of await jsonIds(join(root, project))) {
      const info = sessionInfo(await readJson(join(root, project, `${id}.json`)), id);
      if (info) out.push(info);
    }
  }
  return out;
}

/** One session with its messages and parts; undefined when no session file of that id is there. */
export async function readJsonSession(storageDir: string, sessionId: string): Promise<(OcSessionRows & { skipped: number }) | undefined> {
  if (!OC_ID.test(sessionId)) return undefined;
  const root = join(storageDir, 'session');
  let info: OcSessionInfo | undefined;
  for (const project of (await entries(root)).dirs.filter((d) => PROJECT_DIR.test(d))) {
    info = sessionInfo(await readJson(join(root, project, `${sessionId}.json`)), sessionId);
    if (info) break;
  }
  if (!info) return undefined;
  let skipped = 0;
  const messages: OcMessage[] = [];
  const parts = new Map<string, OcPart[]>();
  const messageDir = join(storageDir, 'message', sessionId);
  for (const id of await jsonIds(messageDir)) {
    const data = await readJson(join(messageDir, `${id}.json`));
    if (!data || (str(data.sessionID) ?? sessionId) !== sessionId) {
      skipped++;
      continue;
    }
    messages.push({ id, sessionId, createdMs: num(obj(data.time)?.created) ?? 0, data });
    const partDir = join(storageDir, 'part', id);
    const list: OcPart[] = [];
    for (const pid of await jsonIds(partDir)) {
      const p = await readJson(join(partDir, `${pid}.json`));
      if (!p || (str(p.messageID) ?? id) !== id) {
        skipped++;
        continue;
      }
      list.push({ id: pid, messageId: id, data: p });
    }
    if (list.length) parts.set(id, list.sort(byId));
  }
  return { info, messages: messages.sort(byId), parts, skipped };
}
