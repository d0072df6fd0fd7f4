// Gemini CLI's session log replayed the way Gemini loads it: a metadata line (`{sessionId, projectHash, startTime,
// lastUpdated, kind}`), message records (`{id, timestamp, type, content, …}`; a record written again with the same
// id is an update of it, e.g. a reply once its tool calls finished), `{"$set": {…}}` lines (`messages` replaces the
// whole message list, as a resume does; other keys are session fields) and `{"$rewindTo": "<id>"}`, which drops that
// record and everything after it from the list. Nothing is dropped here: the messages a rewind (or a shorter
// `$set messages`) took out of the list stay as an abandoned branch, and what comes next continues from the last
// message still in the list. One loop over the lines, no recursion; unknown lines are passed over.
import { obj, str, type JsonRecord } from '../jsonl-lines';

export interface GeminiNode {
  id: string;
  /** The message before it in the list when it was first recorded (null: the first). */
  parent: string | null;
  /** Its latest version. */
  record: JsonRecord;
  /** 1-based line of its first appearance. */
  line: number;
  /** Where that line starts in the file. */
  byteStart: number;
  /** It appeared as a line of its own (not only inside a `$set messages`). */
  own: boolean;
}

export interface GeminiMeta {
  sessionId?: string;
  projectHash?: string;
  startTime?: string;
  lastUpdated?: string;
  summary?: string;
  kind?: string;
  /** Set by agent-rewind in a fork's metadata: the session it was forked from. */
  forkedFrom?: string;
}

export interface GeminiReplay {
  /** In the order they were first recorded: a parent always comes before its children. */
  nodes: GeminiNode[];
  byId: Map<string, GeminiNode>;
  /** The message list as it stands at the end (ids, oldest first). */
  current: string[];
  meta: GeminiMeta;
  /** `$rewindTo` markers that named a message in the list. */
  rewinds: number;
}

export interface GeminiLine {
  rec: JsonRecord;
  line: number;
  byteStart: number;
}

const META_KEYS = ['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'summary', 'kind', 'forkedFrom'] as const;

export function isMessageRecord(rec: JsonRecord): boolean {
  return typeof rec.id === 'string' && rec.id !== '' && typeof rec.type === 'string';
}

export function replayGeminiLines(lines: Iterable<GeminiLine>): GeminiReplay {
  const out: GeminiReplay = { nodes: [], byId: new Map(), current: [], meta: {}, rewinds: 0 };
  const setMeta = (src: JsonRecord, first: boolean) => {
    for (const k of META_KEYS) {
      const v = str(src[k]);
      if (v !== undefined && (!first || out.meta[k] === undefined)) out.meta[k] = v;
    }
  };
  const addNode = (rec: JsonRecord, l: GeminiLine, parent: string | null, own: boolean): void => {
    const node: GeminiNode = { id: rec.id as string, parent, record: rec, line: l.line, byteStart: l.byteStart, own };
    out.nodes.push(node);
    out.byId.set(node.id, node);
  };
  for (const l of lines) {
    const rec = l.rec;
    if (typeof rec.$rewindTo === 'string') {
      const at = out.current.indexOf(rec.$rewindTo);
      if (at >= 0) {
        out.current.length = at;
        out.rewinds++;
      }
      continue;
    }
    const set = obj(rec.$set);
    if (set) {
      if (Array.isArray(set.messages)) replaceMessages(set.messages, l);
      setMeta(set, false);
      continue;
    }
    if (isMessageRecord(rec)) {
      const known = out.byId.get(rec.id as string);
      if (known) {
        known.record = rec;
        if (!known.own) {
          known.own = true;
          known.line = l.line;
          known.byteStart = l.byteStart;
        }
        continue;
      }
      addNode(rec, l, out.current[out.current.length - 1] ?? null, true);
      out.current.push(rec.id as string);
      continue;
    }
    // a metadata line (a resume in the same minute writes another one into the file): the first values stand
    if (typeof rec.sessionId === 'string') setMeta(rec, true);
  }
  return out;

  function replaceMessages(messages: unknown[], l: GeminiLine): void {
    const list: string[] = [];
    const listed = new Set<string>();
    let cursor: string | null = null;
    for (const m of messages) {
      const rec = obj(m);
      if (!rec || !isMessageRecord(rec)) continue;
      const id = rec.id as string;
      if (listed.has(id)) continue;
      // a message already known keeps the version it was recorded with (a resume rewrites the replies' tool calls
      // as parts of their content and drops the results shown with them)
      if (!out.byId.has(id)) addNode(rec, l, cursor, false);
      list.push(id);
      listed.add(id);
      cursor = id;
    }
    out.current = list;
  }
}

/** The old `.json` layout: one object `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`. */
export function replayGeminiJson(doc: JsonRecord): GeminiReplay {
  const messages = Array.isArray(doc.messages) ? doc.messages : [];
  const meta: JsonRecord = { ...doc };
  delete meta.messages;
  const lines: GeminiLine[] = [{ rec: meta, line: 1, byteStart: 0 }];
  messages.forEach((m) => {
    const rec = obj(m);
    if (rec) lines.push({ rec, line: 1, byteStart: 0 });
  });
  return replayGeminiLines(lines);
}
