// Snapshot records: which root tree a (session id, anchor id) pair points at. One small JSON file per snapshot, named
// by hashes of the ids (ids are arbitrary strings, file names must not be), so they survive restarts and are cheap
// to look up. Every record read back is validated.
import { hash } from 'node:crypto';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { stageFileAtomic, writeFileAtomic } from './atomic-write';
import { isObjectHash } from './store/object-format';
import { parseUndoStack, type UndoRecord } from './restore/undo-record';

const recordSchema = z.object({
  v: z.literal(1),
  sessionId: z.string().min(1),
  anchorId: z.string().min(1),
  kind: z.enum(['user-message', 'turn-end', 'pre-restore']),
  root: z.string().refine(isObjectHash),
  createdAt: z.string(),
  files: z.number().int().min(0),
  totalBytes: z.number().min(0),
  /** Not a moment of the workspace: another session's snapshot adopted by a fork, or one made from another tool's
   *  saved copies. The workspace timeline (timeline.ts) leaves such records out. */
  derived: z.enum(['adopted', 'imported']).optional(),
});
export type SnapshotRecord = z.infer<typeof recordSchema>;

/** A second user-message snapshot of the same (session, anchor) with other content: the first one stays. */
export class SnapshotExistsError extends Error {}

// crypto.hash, not createHash: a fresh process names the record file of every point of the timeline (timeline.ts,
// unlistedRecords), and a Hash object per name was most of that
const idName = (id: string) => hash('sha256', id, 'hex').slice(0, 40);

/** The name of the file that holds the record of `anchorId` in its session's folder. */
export const recordFileName = (anchorId: string): string => idName(anchorId) + '.json';
/** The name of a session's folder of records. */
export const sessionFolderName = (sessionId: string): string => idName(sessionId);

export class SnapshotRecords {
  constructor(private readonly storeDir: string) {}

  private sessionDir(sessionId: string): string {
    return join(this.storeDir, 'snapshots', idName(sessionId));
  }

  /**
   * Writes a record. A user message's snapshot is the state its rewind brings back, so it is never replaced: a second
   * one with the same root is a no-op (the first record is returned), one with another root is refused.
   */
  async put(rec: SnapshotRecord): Promise<SnapshotRecord> {
    return (await this.stage(rec)).commit();
  }

  /**
   * put() in two halves: the checks and the record's write (fsynced for a user message) now, its rename by commit().
   * A snapshot stages its record while its pack is fsynced and commits it once the pack is on disk: the record never
   * points at a pack that is not there, and the two fsyncs overlap instead of adding up on a prompt's hook.
   */
  async stage(rec: SnapshotRecord): Promise<StagedRecord> {
    if (rec.kind === 'user-message') {
      const existing = await this.get(rec.sessionId, rec.anchorId);
      if (existing?.kind === 'user-message') {
        if (existing.root === rec.root) return { commit: async () => existing, abort: async () => {} };
        throw new SnapshotExistsError(
          `message ${rec.anchorId} already has a file snapshot (taken ${existing.createdAt}) and the workspace has changed since; it is kept, so the files as they were at that message can still be restored`,
        );
      }
    }
    // a user message's record is fsynced (with the folder) before the snapshot is reported: it is what a rewind
    // starts from. The others are not: losing one to a power cut loses an undo or a turn-end hint, never workspace
    // files (the pack a pre-restore record points at and the restore journal are what must reach the disk first)
    const file = join(this.sessionDir(rec.sessionId), idName(rec.anchorId) + '.json');
    const staged = await stageFileAtomic(file, JSON.stringify(rec), { durable: rec.kind === 'user-message' });
    return {
      commit: async () => {
        await staged.commit();
        // every rewind needs the session's latest turn-end snapshot: a pointer spares reading all its records
        if (rec.kind === 'turn-end') await writeFileAtomic(join(this.sessionDir(rec.sessionId), 'latest-turn-end'), JSON.stringify(rec));
        return rec;
      },
      abort: () => staged.abort(),
    };
  }

  /** The session's most recent turn-end snapshot (used to tell the user's own edits from the agent's). */
  async latestTurnEnd(sessionId: string): Promise<SnapshotRecord | undefined> {
    const ptr = await this.readRecord(join(this.sessionDir(sessionId), 'latest-turn-end'), sessionId);
    // the pointer only counts while the record it copies still exists (gc or the size cap may have dropped it)
    if (ptr?.kind === 'turn-end' && (await this.get(sessionId, ptr.anchorId))?.root === ptr.root) return ptr;
    return (await this.ofSession(sessionId))
      .filter((r) => r.kind === 'turn-end')
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .at(-1);
  }

  async get(sessionId: string, anchorId: string): Promise<SnapshotRecord | undefined> {
    return this.readRecord(join(this.sessionDir(sessionId), recordFileName(anchorId)), sessionId, anchorId);
  }

  /** The names of the session's record files (see recordFileName), without reading them. */
  /** The names of the sessions' record folders (sessionFolderName). */
  async sessionFolderNames(): Promise<string[]> {
    try {
      return await readdir(join(this.storeDir, 'snapshots'));
    } catch {
      return [];
    }
  }

  async recordFilesOf(sessionId: string): Promise<string[]> {
    try {
      return (await readdir(this.sessionDir(sessionId))).filter((f) => f.endsWith('.json'));
    } catch {
      return [];
    }
  }

  /** The record in the session's file `name` (one of recordFilesOf), if it is a valid record of that session. */
  async readRecordFile(sessionId: string, name: string): Promise<SnapshotRecord | undefined> {
    return this.readRecord(join(this.sessionDir(sessionId), name), sessionId);
  }

  /** What the session's latest turn-end pointer says, without checking that its record is still there. */
  async latestTurnEndPointer(sessionId: string): Promise<SnapshotRecord | undefined> {
    const ptr = await this.readRecord(join(this.sessionDir(sessionId), 'latest-turn-end'), sessionId);
    return ptr?.kind === 'turn-end' ? ptr : undefined;
  }

  private async readRecord(file: string, sessionId?: string, anchorId?: string): Promise<SnapshotRecord | undefined> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return undefined;
    }
    let parsed;
    try {
      parsed = recordSchema.safeParse(JSON.parse(text));
    } catch {
      return undefined;
    }
    if (!parsed.success) return undefined;
    // a record copied under another name must not answer for other ids
    if ((sessionId !== undefined && parsed.data.sessionId !== sessionId) || (anchorId !== undefined && parsed.data.anchorId !== anchorId)) return undefined;
    return parsed.data;
  }

  async delete(sessionId: string, anchorId: string): Promise<void> {
    await unlink(join(this.sessionDir(sessionId), idName(anchorId) + '.json')).catch(() => {});
  }

  /** Every valid record of every session (gc roots). */
  async all(): Promise<SnapshotRecord[]> {
    const out: SnapshotRecord[] = [];
    const base = join(this.storeDir, 'snapshots');
    let dirs: string[];
    try {
      dirs = await readdir(base);
    } catch {
      return out;
    }
    for (const d of dirs) {
      let files: string[];
      try {
        files = await readdir(join(base, d));
      } catch {
        continue;
      }
      for (const f of files) {
        if (!f.endsWith('.json')) continue;
        const rec = await this.readRecord(join(base, d, f));
        if (rec) out.push(rec);
      }
    }
    return out;
  }

  async ofSession(sessionId: string): Promise<SnapshotRecord[]> {
    const dir = this.sessionDir(sessionId);
    let files: string[];
    try {
      files = await readdir(dir);
    } catch {
      return [];
    }
    const recs = await Promise.all(files.filter((f) => f.endsWith('.json')).map((f) => this.readRecord(join(dir, f), sessionId)));
    return recs.filter((r): r is SnapshotRecord => r !== undefined);
  }

  /** The session that holds a snapshot anchored at `anchorId`, other than `exceptSession`. */
  async ownerOf(anchorId: string, exceptSession: string): Promise<string | undefined> {
    const base = join(this.storeDir, 'snapshots');
    let dirs: string[];
    try {
      dirs = await readdir(base);
    } catch {
      return undefined;
    }
    const skip = idName(exceptSession);
    for (const d of dirs) {
      if (d === skip) continue;
      const rec = await this.readRecord(join(base, d, idName(anchorId) + '.json'), undefined, anchorId);
      if (rec) return rec.sessionId;
    }
    return undefined;
  }

  private undoFile(sessionId: string): string {
    return join(this.storeDir, 'undo', idName(sessionId) + '.json');
  }

  async undoStack(sessionId: string): Promise<UndoRecord[]> {
    try {
      const parsed = parseUndoStack(JSON.parse(await readFile(this.undoFile(sessionId), 'utf8')));
      return parsed ? parsed.filter((u) => u.sessionId === sessionId) : [];
    } catch {
      return [];
    }
  }

  async setUndoStack(sessionId: string, stack: UndoRecord[]): Promise<void> {
    await writeFileAtomic(this.undoFile(sessionId), JSON.stringify(stack.slice(-20)));
  }

  /** All undo stacks (their pre-restore snapshots stay gc roots while undo is possible). */
  async allUndo(): Promise<UndoRecord[]> {
    const dir = join(this.storeDir, 'undo');
    let files: string[];
    try {
      files = await readdir(dir);
    } catch {
      return [];
    }
    const out: UndoRecord[] = [];
    for (const f of files) {
      try {
        const parsed = parseUndoStack(JSON.parse(await readFile(join(dir, f), 'utf8')));
        if (parsed) out.push(...parsed);
      } catch {
        /* unreadable: ignore */
      }
    }
    return out;
  }
}

/** A record written but not yet in place (SnapshotRecords.stage). */
export interface StagedRecord {
  commit(): Promise<SnapshotRecord>;
  abort(): Promise<void>;
}
