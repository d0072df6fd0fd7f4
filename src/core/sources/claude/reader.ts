// readClaudeSession: one read of the transcript, one pass over its lines, then the pieces that need the whole graph
// (branch flattening, subagents, fork origin). Never writes anything.
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FileHistory } from './file-history';
import { flattenArtifactForks } from './flatten';
import { detectForkOrigin } from './fork-origin';
import { splitClaudeLines, str, type RawLine } from './lines';
import { normalizeLines } from './normalize';
import { ClaudeSession } from './session';
import { loadSubagents } from './subagents';
import { TitleCollector } from './title';

export interface ReadClaudeSessionOptions {
  /** Claude Code's config folder (for file-history backups); default: the folder holding `projects/`. */
  configDir?: string;
  /** Read subagent transcripts (default true). */
  subagents?: boolean;
  /** Look through the project folder for the session this one was forked from when no line says (default true). */
  findForkOrigin?: boolean;
}

export async function readClaudeSession(file: string, opts: ReadClaudeSessionOptions = {}): Promise<ClaudeSession> {
  let buf: Buffer;
  try {
    buf = await readFile(file);
  } catch (err) {
    throw new Error(`Cannot read the Claude Code transcript ${file}: ${(err as Error).message}`);
  }
  const { lines, skipped } = splitClaudeLines(buf);
  const sessionId = basename(file, '.jsonl');
  const cwd = firstString(lines, 'cwd') ?? dirname(file);
  const configDir = opts.configDir ?? dirname(dirname(dirname(file)));
  const fileHistory = new FileHistory(cwd, join(configDir, 'file-history', sessionId));
  const titles = new TitleCollector();
  const sidechain: RawLine[] = [];
  for (const l of lines) {
    if (l.rec.isSidechain === true) sidechain.push(l);
    else if (typeof l.rec.uuid !== 'string' && !titles.add(l.rec)) fileHistory.add(l.rec, l.line);
  }
  const tree = normalizeLines(lines, { includeSidechains: false });
  flattenArtifactForks(tree.entries, tree.promptEntries);

  const fork = await detectForkOrigin(file, lines, opts.findForkOrigin !== false);
  const inherited = new Set<string>();
  let lastShared: string | undefined;
  for (const u of fork?.inherited ?? []) {
    const id = tree.alias.get(u);
    if (id !== undefined) inherited.add((lastShared = id));
  }
  const subagents = opts.subagents === false ? new Map() : await loadSubagents(file, sessionId, tree, sidechain);
  const createdAt = firstString(lines, 'timestamp') ?? new Date((await stat(file)).birthtimeMs).toISOString();
  return new ClaudeSession({
    sessionId,
    sessionFile: file,
    cwd,
    title: titles.title((u) => tree.alias.has(u), tree.prompts[0]?.text),
    createdAt,
    tree,
    report: { skipped },
    subagents,
    fileHistory,
    inherited,
    ...(fork
      ? { forkedFrom: { sessionId: fork.sessionId, ...(fork.sessionFile ? { sessionFile: fork.sessionFile } : {}), ...(lastShared ? { entryId: lastShared } : {}) } }
      : {}),
  });
}

function firstString(lines: readonly RawLine[], key: string): string | undefined {
  for (const l of lines) {
    const v = str(l.rec[key]);
    if (v) return v;
  }
  return undefined;
}
