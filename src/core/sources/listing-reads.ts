// Listing another agent's sessions reads only the ends of each file: these parse what such a chunk holds, and list a
// folder that may be missing. Shared by the Claude Code and Codex discovery.
import { readdir } from 'node:fs/promises';
import { parseBoundedJson } from '../json-depth';

export type ListingRecord = Record<string, unknown>;

/** Parses the lines of a chunk, dropping a line cut by the chunk's start or end and any line that is not an object. */
export function parseComplete(buf: Buffer, atStart: boolean, atEnd: boolean): ListingRecord[] {
  const text = buf.toString('utf8');
  const lines = text.split('\n');
  if (!atStart) lines.shift();
  if (!atEnd || !text.endsWith('\n')) lines.pop();
  const out: ListingRecord[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const v: unknown = parseBoundedJson(line);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(v as ListingRecord);
    } catch {
      // a damaged line: listing goes on with the others
    }
  }
  return out;
}

/** A folder's names, sorted; none when it is missing or unreadable. */
export async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}
