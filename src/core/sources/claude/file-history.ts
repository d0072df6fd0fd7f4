// Claude Code's own per-prompt file checkpoints, read-only. A `file-history-snapshot` line starts (or, with
// isSnapshotUpdate, extends) the checkpoint of the prompt whose uuid is its messageId; since 2.1.220 files first
// touched during a turn come as `file-history-delta` lines instead. A path's first record under a prompt is its
// content before that turn changed it; later records under the same prompt are post-edit versions and are ignored.
// Seen in 2.1.330: a delta's messageId is the assistant line of the editing tool call and snapshotMessageId the
// prompt. A relative tracking path is relative to the session's cwd (the project folder); the backup's realParentDir
// is the file's own folder with symlinks resolved (`src/util.js` comes with realParentDir `<project>/src`), so it is
// never joined with the tracking path: that made `<project>/src/src/util.js`, and a rewind missed the subfolder file
// (or wrote one where none had been).
import { isAbsolute, join, resolve } from 'node:path';
import { obj, str, type ClaudeRecord } from './lines';

export interface FileHistoryFile {
  /** Absolute path of the tracked file. */
  path: string;
  /** The backup holding its content, or null: the file did not exist. */
  backupFile: string | null;
}

interface Checkpoint {
  /** Line of the checkpoint's first record: checkpoints are ordered by it. */
  line: number;
  files: Map<string, Backup>;
}

interface Backup {
  name: string | null;
}

export class FileHistory {
  private readonly byMessage = new Map<string, Checkpoint>();
  private readonly ordered: Checkpoint[] = [];

  /** @param backupDir `<configDir>/file-history/<sessionId>` */
  constructor(private readonly backupDir: string) {}

  get isEmpty(): boolean {
    return this.ordered.length === 0;
  }

  /** Takes a transcript line if it is a file-history record; returns whether it was. */
  add(rec: ClaudeRecord, line: number): boolean {
    if (rec.type === 'file-history-snapshot') {
      const snapshot = obj(rec.snapshot);
      const messageId = str(rec.messageId) ?? str(snapshot?.messageId);
      if (!messageId) return true;
      const cp = this.checkpoint(messageId, line);
      for (const [path, backup] of Object.entries(obj(snapshot?.trackedFileBackups) ?? {})) this.track(cp, path, backup);
      return true;
    }
    if (rec.type === 'file-history-delta') {
      const messageId = str(rec.snapshotMessageId) ?? str(rec.messageId);
      const path = str(rec.trackingPath);
      if (messageId && path) this.track(this.checkpoint(messageId, line), path, rec.backup);
      return true;
    }
    return false;
  }

  /**
   * Every path tracked at or after the prompt, as it was when the prompt was sent: its backup under that prompt, else
   * its first backup under a later prompt (its content before Claude first touched it). "Later" is file order.
   * @param promptLine the prompt's own line, for a prompt that has no checkpoint of its own.
   * @param cwd what relative tracking paths are relative to.
   */
  at(promptUuid: string, promptLine: number, cwd: string): { files: FileHistoryFile[] } | undefined {
    if (this.isEmpty) return undefined;
    const own = this.byMessage.get(promptUuid);
    const from = own ? this.ordered.indexOf(own) : this.ordered.findIndex((c) => c.line > promptLine);
    const seen = new Map<string, Backup>();
    if (from >= 0) {
      for (let i = from; i < this.ordered.length; i++) {
        for (const [path, backup] of this.ordered[i]!.files) if (!seen.has(path)) seen.set(path, backup);
      }
    }
    return {
      files: [...seen].map(([path, b]) => ({
        path: isAbsolute(path) ? path : resolve(cwd, path),
        backupFile: b.name === null ? null : join(this.backupDir, b.name),
      })),
    };
  }

  private checkpoint(messageId: string, line: number): Checkpoint {
    let cp = this.byMessage.get(messageId);
    if (!cp) {
      cp = { line, files: new Map() };
      this.byMessage.set(messageId, cp);
      this.ordered.push(cp);
    }
    return cp;
  }

  private track(cp: Checkpoint, path: string, backup: unknown): void {
    if (cp.files.has(path)) return;
    const b = obj(backup);
    if (!b) return;
    const name = str(b.backupFileName);
    // a backup name with a path in it would point outside the session's backup folder
    if (name !== undefined && (name.includes('/') || name.includes('\\') || name === '..')) return;
    cp.files.set(path, { name: name ?? null });
  }
}
