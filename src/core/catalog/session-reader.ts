// Everything the catalog stores about one session, read through its adapter (another agent's) or the core loader
// (ours) without writing anything.
import { basename, resolve } from 'node:path';
import { previewOf, toTranscriptItem } from '../transcript/transcript';
import { branchesOf, sessionTitle } from '../sources/session-details';
import { defaultStoreDir } from '../files/file-checkpointer';
import { SnapshotRecords } from '../files/snapshot-records';
import { SessionManager } from '../session/session-manager';
import type { SessionEntry, SessionSource } from '../session/types';
import { isForeignView, type SessionView } from '../sources/session-view';
import { isReadOnlySource } from '../sources/registry';
import { snapshotsByEntry } from '../sources/file-anchors';
import type { SessionRef, SessionStamp } from '../sources/session-ref';
import { ReadOnlySessionStorage } from './read-only-storage';
import { TimeSlicer } from './time-slice';

/** Text beyond this (per entry) is not searchable: huge tool outputs would make every save slow. */
export const MAX_INDEXED_CHARS = 16 * 1024;

export interface IndexedBranch {
  name: string;
  headEntryId: string | null;
  messageCount: number;
  active: boolean;
}

export interface IndexedCheckpoint {
  /** The checkpoint's name (named), or the anchor message's one-line preview (file). */
  name: string;
  entryId: string;
  kind: 'named' | 'file';
  created?: string;
  /** How many files a file checkpoint holds. */
  files?: number;
}

export interface IndexedMessage {
  entryId: string;
  /** The transcript's kind: user, assistant, toolCall, toolResult, bash, branchSummary, compaction, custom, … */
  kind: string;
  /** e.g. the tool name or the custom type. */
  title?: string;
  /** The branch the message is shown on: the active one when it is on its path, else the first that holds it. */
  branch?: string;
  timestamp?: string;
  text: string;
}

/** A session's version as the catalog indexes it: its stamp (session-ref.ts), and when it last changed. */
export interface SessionVersion {
  stamp: SessionStamp;
  modifiedMs: number;
}

export interface IndexedSession extends SessionVersion {
  sessionId: string;
  ref: SessionRef;
  source: SessionSource;
  cwd: string;
  title: string;
  created: string;
  modified: string;
  entryCount: number;
  activeBranch?: string;
  /** The format version on disk. Below 2 the entry ids are assigned on load (they change when the file is migrated). */
  fileVersion: number;
  problem?: string;
  branches: IndexedBranch[];
  checkpoints: IndexedCheckpoint[];
  messages: IndexedMessage[];
}

export interface ReadOptions {
  home: string;
  /** The file-checkpoint store of a working folder (default: <home>/checkpoints/<folder>-<hash>, when the folder exists). */
  fileCheckpointStore?: (cwd: string) => string | undefined;
  warn?: (message: string) => void;
  /** Reads another agent's session (Claude Code, Codex) read-only; without it such sessions are not indexed. */
  openForeign?: (ref: SessionRef) => Promise<SessionView | undefined>;
}

/** The store a folder's file checkpoints are in by default, or undefined when the folder is gone. */
export function defaultFileCheckpointStore(home: string, cwd: string): string | undefined {
  if (!cwd) return undefined;
  try {
    return defaultStoreDir(home, cwd);
  } catch {
    return undefined;
  }
}

/** Which branch each entry is shown on: walk each branch's path from its leaf up, stopping at the first entry an
 *  earlier branch already claimed (its ancestors are claimed too), so the pass is linear in the entries. */
function branchOfEntries(session: SessionView, branches: { name: string; leafId: string | null; isActive: boolean }[]): Map<string, string> {
  const out = new Map<string, string>();
  const ordered = [...branches.filter((b) => b.isActive), ...branches.filter((b) => !b.isActive)];
  for (const b of ordered) {
    let id = b.leafId;
    while (id !== null && !out.has(id)) {
      const entry: SessionEntry | undefined = session.getEntry(id);
      if (!entry) break;
      out.set(id, b.name);
      id = entry.parentId;
    }
  }
  return out;
}

function searchableText(entry: SessionEntry): { kind: string; title?: string; text: string } | undefined {
  const item = toTranscriptItem(entry, {});
  if (!item) return undefined;
  // A tool's or custom message's title (its name) is worth finding; an assistant's is the model, on every reply.
  const title = item.kind === 'assistant' ? undefined : item.title;
  const text = [title, item.markdown].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n');
  if (!text) return undefined;
  return { kind: item.kind, ...(item.title ? { title: item.title } : {}), text: text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text };
}

/** Reads a session for the catalog, as of `version` (taken before the read, so a change while reading is seen by the
 *  next refresh); undefined when it cannot be read. Never writes to the session, its folder, the blob store or
 *  anywhere else. */
export async function readSessionForCatalog(
  ref: SessionRef,
  source: SessionSource,
  version: SessionVersion,
  opts: ReadOptions,
): Promise<IndexedSession | undefined> {
  // another agent's session (the registry's read-only kinds) is read through its adapter, ours with a read-only store
  if (isReadOnlySource(source)) {
    const view = await opts.openForeign?.(ref);
    if (!view || !isForeignView(view)) return undefined;
    const report = view.getLoadReport();
    const problems = report.skipped.length ? [`${report.skipped.length} unreadable line(s)`] : [];
    return indexView(view, { ref, source, ...version, created: view.createdAt, fileVersion: 0, problems }, opts);
  }
  const path = resolve(ref);
  const storage = new ReadOnlySessionStorage();
  const before = await storage.stat(path);
  if (!before?.isFile) return undefined;
  const session = await SessionManager.open(path, { storage, home: opts.home, deferUntilAssistant: true });
  try {
    const report = session.getLoadReport();
    const header = session.getHeader();
    // An empty file, or one without a valid header, is loaded as a fresh session that is not this file's: index the
    // file under its name with the problem, and nothing from the made-up session.
    const badHeader = before.size === 0 || (report.backupFile !== undefined && report.migratedFrom === undefined);
    const fileVersion = badHeader ? 0 : (report.migratedFrom ?? (typeof header.version === 'number' ? header.version : 1));
    const problems: string[] = [];
    if (badHeader) problems.push(before.size === 0 ? 'empty file' : 'no valid session header');
    if (report.skipped.length) problems.push(`${report.skipped.length} unreadable line(s)`);

    if (!badHeader) {
      const indexed = await indexView(session, { ref: path, source, ...version, created: header.timestamp, fileVersion, problems }, opts);
      // the file vanished between stat and read: the loader then made an empty session, which is not this file
      return (await storage.stat(path)) ? indexed : undefined;
    }
    if (!(await storage.stat(path))) return undefined;
    // Indexed under its name with the problem, and nothing from the made-up session.
    return {
      sessionId: idFromFileName(path),
      ref: path,
      source,
      cwd: '',
      title: 'Unreadable session',
      created: new Date(before.birthtimeMs || before.mtimeMs).toISOString(),
      modified: new Date(version.modifiedMs).toISOString(),
      ...version,
      entryCount: 0,
      fileVersion,
      problem: problems.join('; '),
      branches: [],
      checkpoints: [],
      messages: [],
    };
  } finally {
    await session.close();
  }
}

/** pi and agent-rewind name files <timestamp>_<session id>.jsonl. */
function idFromFileName(path: string): string {
  const base = basename(path);
  return /^.+_([^_]+)\.jsonl$/.exec(base)?.[1] ?? base.replace(/\.jsonl$/, '');
}

interface SessionFacts extends SessionVersion {
  ref: SessionRef;
  source: SessionSource;
  created: string;
  fileVersion: number;
  problems: string[];
}

/** The catalog's rows of a session read into the common model (any agent's). */
async function indexView(session: SessionView, facts: SessionFacts, opts: ReadOptions): Promise<IndexedSession> {
  const branchWarnings: string[] = [];
  const snap = branchesOf(session, (m) => branchWarnings.push(m));
  if (branchWarnings.length) opts.warn?.(`${facts.ref}: ${branchWarnings.join('; ')}`);
  const branchOf = branchOfEntries(session, snap.branches);
  const messages: IndexedMessage[] = [];
  const slicer = new TimeSlicer();
  for (const entry of session.getEntries()) {
    await slicer.maybeYield();
    const found = searchableText(entry);
    if (!found) continue;
    const branch = branchOf.get(entry.id);
    messages.push({ entryId: entry.id, ...found, ...(branch ? { branch } : {}), ...(entry.timestamp ? { timestamp: entry.timestamp } : {}) });
  }
  const checkpoints: IndexedCheckpoint[] = snap.checkpoints.map((c) => ({
    name: c.name,
    entryId: c.messageId,
    kind: 'named' as const,
    created: new Date(c.createdAt).toISOString(),
  }));
  checkpoints.push(...(await fileCheckpointsOf(session, opts)));
  return {
    sessionId: session.sessionId,
    ref: facts.ref,
    source: isForeignView(session) ? session.source : facts.source,
    cwd: session.cwd,
    title: sessionTitle(session),
    created: facts.created,
    modified: new Date(facts.modifiedMs).toISOString(),
    stamp: facts.stamp,
    modifiedMs: facts.modifiedMs,
    entryCount: session.getEntries().length,
    activeBranch: snap.active.name,
    fileVersion: facts.fileVersion,
    ...(facts.problems.length ? { problem: facts.problems.join('; ') } : {}),
    branches: snap.branches.map((b) => ({ name: b.name, headEntryId: b.headMessageId, messageCount: b.messageCount, active: b.isActive })),
    checkpoints,
    messages,
  };
}

async function fileCheckpointsOf(session: SessionView, opts: ReadOptions): Promise<IndexedCheckpoint[]> {
  const storeDir = (opts.fileCheckpointStore ?? ((cwd) => defaultFileCheckpointStore(opts.home, cwd)))(session.cwd);
  if (!storeDir) return [];
  try {
    const records = new SnapshotRecords(storeDir);
    const out: IndexedCheckpoint[] = [];
    // a snapshot whose message is gone from the file cannot be rewound to, so it is left out; a fork's copied prompts
    // count their origin's snapshots, as the engine's do
    for (const [entryId, r] of await snapshotsByEntry(session, { listSnapshots: (id) => records.ofSession(id) })) {
      const entry = session.getEntry(entryId);
      if (entry) out.push({ name: previewOf(entry), entryId, kind: 'file', created: r.createdAt, files: r.files });
    }
    return out;
  } catch (error) {
    opts.warn?.(`file checkpoints of ${session.sessionId}: ${(error as Error).message}`);
    return [];
  }
}
