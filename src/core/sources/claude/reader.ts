// readClaudeSession: one read of the transcript and one pass over its lines, each line handed on as soon as it is
// parsed (nothing keeps the raw records), then the pieces that need the whole graph (branch flattening, subagents,
// fork origin). Never writes anything.
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readRegularFile } from '../../agent-files';
import { forkTitle } from '../fork-title';
import { FileHistory } from './file-history';
import { flattenArtifactForks } from './flatten';
import { detectForkOrigin, type ForkClues } from './fork-origin';
import { forEachClaudeLine, obj, str, type RawLine } from './lines';
import { TreeBuilder } from './normalize';
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
    buf = await readRegularFile(file);
  } catch (err) {
    throw new Error(`Cannot read the Claude Code transcript ${file}: ${(err as Error).message}`);
  }
  const sessionId = basename(file, '.jsonl');
  const configDir = opts.configDir ?? dirname(dirname(dirname(file)));
  const fileHistory = new FileHistory(join(configDir, 'file-history', sessionId));
  const titles = new TitleCollector();
  const builder = new TreeBuilder({ includeSidechains: false });
  const sidechain: RawLine[] = [];
  const clues: ForkClues = { uuids: [], marks: [] };
  let cwd: string | undefined;
  let createdAt: string | undefined;
  const { skipped } = forEachClaudeLine(buf, (l) => {
    const rec = l.rec;
    if (rec.isSidechain === true) {
      sidechain.push(l);
      return;
    }
    cwd ??= str(rec.cwd);
    // A fork's copied lines keep the origin's times: it started with its first line of its own (else when written).
    if (obj(rec.forkedFrom) === undefined) createdAt ??= str(rec.timestamp);
    const uuid = str(rec.uuid);
    if (uuid === undefined) {
      if (!titles.add(rec)) fileHistory.add(rec, l.line);
      return;
    }
    if (!builder.add(l)) return;
    // the first conversation line, not a queue line: a 2.1.330 fork's own queue lines precede the copied ones
    if (clues.uuids.length === 0) clues.firstTimestamp = str(rec.timestamp);
    clues.uuids.push(uuid);
    const from = str(obj(rec.forkedFrom)?.sessionId);
    if (from) clues.marks.push({ uuid, sessionId: from });
  });
  buf = Buffer.alloc(0);
  const tree = builder.finish();
  flattenArtifactForks(tree.entries, tree.promptEntries);

  const fork = await detectForkOrigin(file, clues, opts.findForkOrigin !== false);
  const inherited = new Set<string>();
  let lastShared: string | undefined;
  for (const u of fork?.inherited ?? []) {
    const id = tree.alias.get(u);
    if (id !== undefined) inherited.add((lastShared = id));
  }
  const subagents = opts.subagents === false ? new Map() : await loadSubagents(file, sessionId, tree, sidechain);
  return new ClaudeSession({
    sessionId,
    sessionRef: file,
    cwd: cwd ?? dirname(file),
    // a fork we wrote (its lines say forkedFrom) starts with its origin's prompts: named apart from it in lists
    title: forkTitle(
      titles.title((u) => builder.has(u), tree.prompts[0]?.text),
      clues.marks.length > 0,
    ),
    createdAt: createdAt ?? (await fileCreatedAt(file)),
    tree,
    report: { skipped },
    subagents,
    fileHistory,
    inherited,
    ...(fork
      ? {
          forkedFrom: {
            sessionId: fork.sessionId,
            ...(fork.sessionRef ? { sessionRef: fork.sessionRef } : {}),
            ...(lastShared ? { entryId: lastShared } : {}),
          },
        }
      : {}),
  });
}

/** When a file was made (birth time where the file system keeps one, else its last change). */
export async function fileCreatedAt(file: string): Promise<string> {
  const st = await stat(file);
  return new Date(st.birthtimeMs || st.mtimeMs).toISOString();
}
