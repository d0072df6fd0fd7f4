// A file's changes since a message, cut into hunks, and the file with only some of them taken back (issue 27, item 3:
// "restore exactly what you choose"). The preview lists the hunks and the rewind writes the result from the same
// functions, so what the preview shows is what the rewind does.
//
// Bytes are diffed as latin1 text, one character per byte: two lines are equal exactly when their bytes are, and
// the parts jsdiff hands back concatenate to the very bytes of each side (a line keeps its own ending, '\n' or
// '\r\n', and a last line without one is a line of its own), so a file put together from them is exact.
import { diffLines, type ChangeObject } from 'diff';
import type { FileHunk, FileHunks } from '../../../shared/view-models';
import { hashObject } from '../store/object-format';
import type { EntryState } from '../store/tree-diff';
import { isBinary } from './line-stats';

/** Past this size a file is taken back whole only (a diff of it would hold a preview up). */
export const MAX_HUNK_FILE_BYTES = 4 * 1024 * 1024;
/** Past this many changed lines (inserted plus deleted) the diff gives up: whole file only. A bound on edits, not on
 *  time, so the preview and the rewind always reach the same answer for the same bytes. */
const MAX_EDIT_LENGTH = 5_000;
/** Lines of one hunk sent to the preview; the rest are counted (the rewind still takes back the whole hunk). */
export const MAX_SHOWN_HUNK_LINES = 200;

/** One run of changed lines between unchanged ones: the parts of the diff it is made of. */
interface RawHunk {
  /** Index of its first part in the diff's parts. */
  first: number;
  /** One past its last part. */
  end: number;
}

export interface SplitFile {
  parts: ChangeObject<string>[];
  hunks: RawHunk[];
}

/** The diff of `anchor` (the file at the message) to `now`, cut into hunks; undefined when it has too many edits. */
export function splitIntoHunks(anchor: Buffer, now: Buffer): SplitFile | undefined {
  const parts = diffLines(anchor.toString('latin1'), now.toString('latin1'), { maxEditLength: MAX_EDIT_LENGTH });
  if (!parts) return undefined;
  const hunks: RawHunk[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (!parts[i]!.added && !parts[i]!.removed) continue;
    const first = i;
    while (i + 1 < parts.length && (parts[i + 1]!.added || parts[i + 1]!.removed)) i++;
    hunks.push({ first, end: i + 1 });
  }
  return { parts, hunks };
}

/**
 * The file now with the hunks numbered in `revert` (1-based) taken back to what they were at the message, every other
 * line as it is now. Taking back every hunk gives the file at the message; none gives the file now.
 */
export function revertHunks(split: SplitFile, revert: ReadonlySet<number>): Buffer {
  const chosen = new Set<number>();
  split.hunks.forEach((h, i) => {
    if (revert.has(i + 1)) for (let p = h.first; p < h.end; p++) chosen.add(p);
  });
  let out = '';
  split.parts.forEach((p, i) => {
    // an unchanged part is on both sides; an added one is now's, kept unless taken back; a removed one is the
    // message's, brought back only when taken back
    if (!p.added && !p.removed) out += p.value;
    else if (p.added !== chosen.has(i)) out += p.value;
  });
  return Buffer.from(out, 'latin1');
}

const linesOf = (p: ChangeObject<string>) => p.count ?? 0;

/** A part's lines as text for a person (UTF-8, line endings dropped). */
function shownLines(p: ChangeObject<string>): string[] {
  const text = Buffer.from(p.value, 'latin1').toString('utf8');
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The hunks as the preview and the CLI show them: where each is, its counts and its lines. */
export function describeHunks(split: SplitFile): FileHunk[] {
  let anchorLine = 1;
  let nowLine = 1;
  let partIndex = 0;
  return split.hunks.map((h, i) => {
    for (; partIndex < h.first; partIndex++) {
      const n = linesOf(split.parts[partIndex]!);
      anchorLine += n;
      nowLine += n;
    }
    let insertions = 0;
    let deletions = 0;
    const lines: FileHunk['lines'] = [];
    let cut = 0;
    for (let p = h.first; p < h.end; p++) {
      const part = split.parts[p]!;
      const n = linesOf(part);
      if (part.added) insertions += n;
      else deletions += n;
      for (const text of shownLines(part)) {
        if (lines.length < MAX_SHOWN_HUNK_LINES) lines.push({ kind: part.added ? '+' : '-', text });
        else cut++;
      }
    }
    partIndex = h.end;
    const hunk: FileHunk = {
      index: i + 1,
      anchorStart: anchorLine,
      anchorLines: deletions,
      nowStart: nowLine,
      nowLines: insertions,
      insertions,
      deletions,
      lines,
    };
    if (cut) hunk.linesNotShown = cut;
    anchorLine += deletions;
    nowLine += insertions;
    return hunk;
  });
}

/** Why a file can only be taken back whole, or undefined when it can be split into hunks. */
export function wholeFileOnly(target: EntryState, now: EntryState, targetData: Buffer | undefined, nowData: Buffer | undefined): string | undefined {
  if (now === null) return 'deleted since the message: whole file only';
  if (target === null) return 'new since the message: whole file only';
  if (now.kind !== 'file' || target.kind !== 'file') return 'not a regular file at both ends (a folder or a symlink): whole file only';
  if (now.mode !== target.mode) return 'its permissions changed too: whole file only';
  if (now.hash === target.hash) return 'the same content at both ends: nothing to split';
  if (!targetData || !nowData) return 'its content could not be read: whole file only';
  if (targetData.length > MAX_HUNK_FILE_BYTES || nowData.length > MAX_HUNK_FILE_BYTES) return 'larger than 4 MiB: whole file only';
  if (isBinary(targetData) || isBinary(nowData)) return 'binary: whole file only';
  return undefined;
}

/** A file's hunks (or why it has none to choose from), keyed by the hash of the bytes they were computed from. */
export function fileHunks(path: string, target: EntryState, now: EntryState, targetData: Buffer | undefined, nowData: Buffer | undefined): FileHunks {
  const whole = wholeFileOnly(target, now, targetData, nowData);
  if (whole !== undefined) return { path, ok: false, reason: whole };
  const split = splitIntoHunks(targetData!, nowData!);
  if (!split) return { path, ok: false, reason: 'too many changes to split into hunks: whole file only' };
  return { path, ok: true, hash: hashObject('blob', nowData!), hunks: describeHunks(split) };
}
