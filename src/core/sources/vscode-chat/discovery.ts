// Listing a workspace's chat sessions: every window storage folder's session files, each placed in a folder
// (attribution.ts) and named (custom title, else its first request). A log up to FULL_READ_BYTES is replayed whole
// (a few milliseconds); a larger one is listed from its first and last chunks only: the initial line when it fits,
// the title set since, and the link bases those chunks name.
import { stat } from 'node:fs/promises';
import { openRegularFile } from '../../agent-files';
import { parseComplete } from '../listing-reads';
import { obj, str, type JsonRecord } from '../jsonl-lines';
import { isInside } from '../workspace-paths';
import { chooseFolder, editingStatePaths, pathsNamedIn, workspaceJsonFolder, type NamedPaths } from './attribution';
import { requestInfo } from './convert';
import { replayChatFile, titleOf } from './reader';
import { VSCODE_CHAT_KIND } from './session';
import { editingFolderOf, sessionFilesIn, sessionIdOfFile } from './storage-folders';

export interface VsChatListing {
  /** The session's log (its ref). */
  sessionRef: string;
  sessionId: string;
  title: string;
  cwd: string;
  createdAt: string;
  modifiedMs: number;
  source: typeof VSCODE_CHAT_KIND;
  /** The model and mode of its latest request ("fake-model · agent"). */
  detail?: string;
}

export const FULL_READ_BYTES = 4 * 1024 * 1024;
const HEAD_BYTES = 256 * 1024;
const TAIL_BYTES = 64 * 1024;

interface Summary {
  state: JsonRecord | undefined;
  title?: string;
  named: NamedPaths;
}

export async function listStorageFolder(storage: string, opts: { roots: readonly string[]; windowFolder?: string }): Promise<VsChatListing[]> {
  const windowFolder = opts.windowFolder ?? (await workspaceJsonFolder(storage));
  const out: VsChatListing[] = [];
  for (const file of sessionFilesIn(storage)) {
    const l = await listOne(file, windowFolder, opts.roots).catch(() => undefined);
    if (l && (opts.roots.length === 0 || opts.roots.some((r) => isInside(l.cwd, r)))) out.push(l);
  }
  return out;
}

async function listOne(file: string, windowFolder: string | undefined, roots: readonly string[]): Promise<VsChatListing | undefined> {
  const st = await stat(file);
  if (!st.isFile()) return undefined;
  const s = st.size <= FULL_READ_BYTES ? await summaryWhole(file) : await summaryOfEnds(file, st.size);
  const requests = Array.isArray(s.state?.requests) ? (s.state.requests as unknown[]) : undefined;
  // a session never given a request (VS Code drops its log on reload) is not a conversation
  if (s.state && requests?.length === 0) return undefined;
  const named = s.named;
  if (!windowFolder && named.bases.length === 0) named.files.push(...(await editingStatePaths(editingFolderOf(file))));
  const cwd = chooseFolder({ ...(windowFolder ? { windowFolder } : {}), named, roots });
  if (!cwd) return undefined;
  const created = typeof s.state?.creationDate === 'number' ? s.state.creationDate : st.birthtimeMs || st.mtimeMs;
  const detail = modelAndMode(requests);
  return {
    sessionRef: file,
    sessionId: str(s.state?.sessionId) ?? sessionIdOfFile(file),
    title: s.title ?? titleOf(s.state) ?? 'VS Code chat',
    cwd,
    createdAt: new Date(created).toISOString(),
    modifiedMs: st.mtimeMs,
    source: VSCODE_CHAT_KIND,
    ...(detail ? { detail } : {}),
  };
}

/** The model (without its vendor) and the mode of the latest request, as the chat view's pickers name them. */
export function modelAndMode(requests: readonly unknown[] | undefined): string | undefined {
  const last = requests?.length ? requestInfo(obj(requests[requests.length - 1]) ?? {}, false) : undefined;
  const model = last?.modelId?.split('/').pop();
  const parts = [model, last?.mode].filter((p): p is string => !!p);
  return parts.length ? parts.join(' · ') : undefined;
}

async function summaryWhole(file: string): Promise<Summary> {
  const fh = await openRegularFile(file);
  let buf: Buffer;
  try {
    buf = await fh.readFile();
  } finally {
    await fh.close();
  }
  const { state } = replayChatFile(file, buf);
  return { state, named: pathsNamedIn(state) };
}

async function summaryOfEnds(file: string, size: number): Promise<Summary> {
  const fh = await openRegularFile(file);
  let head: Buffer;
  let tail: Buffer;
  try {
    const read = async (pos: number, len: number) => {
      const b = Buffer.alloc(len);
      const { bytesRead } = await fh.read(b, 0, len, pos);
      return b.subarray(0, bytesRead);
    };
    head = await read(0, HEAD_BYTES);
    tail = await read(size - TAIL_BYTES, TAIL_BYTES);
  } finally {
    await fh.close();
  }
  const records = [...parseComplete(head, true, false), ...parseComplete(tail, false, true)];
  const initial = records.find((r) => r.kind === 0);
  const state = obj(initial?.v);
  let title: string | undefined;
  for (const r of records) if (r.kind === 1 && Array.isArray(r.k) && r.k.length === 1 && r.k[0] === 'customTitle') title = str(r.v)?.trim() || title;
  if (!title && !state) title = textAfter(head.toString('utf8'), '"message":{"text":');
  const text = head.toString('utf8') + '\n' + tail.toString('utf8');
  const bases = [...text.matchAll(/"baseUri":\{[^{}]*?"path":"((?:[^"\\]|\\.)*)"/g)].flatMap((m) => {
    try {
      return [JSON.parse(`"${m[1]!}"`) as string];
    } catch {
      return [];
    }
  });
  const named = pathsNamedIn(state);
  return { state, ...(title ? { title } : {}), named: { bases: [...named.bases, ...bases], files: named.files } };
}

function textAfter(text: string, marker: string): string | undefined {
  const at = text.indexOf(marker);
  if (at < 0) return undefined;
  const m = /^"((?:[^"\\]|\\.)*)"/.exec(text.slice(at + marker.length));
  if (!m) return undefined;
  try {
    return (JSON.parse(`"${m[1]!}"`) as string).trim().slice(0, 200) || undefined;
  } catch {
    return undefined;
  }
}
