// Read-only documents for VS Code's diff editor: a file as it was at a user message's snapshot
// (agent-rewind-snapshot:/<rel path>?<session file + anchor>), and the same file as it is now in the workspace (the
// query says `now`). Nothing here can write: the scheme has no FileSystemProvider, so the editor opens them read-only,
// and the rewind preview's diff has no revert arrows that would edit the real file on a stray click. A "now" document
// follows the file on disk while it is open. A file's history (query `history`) gives the file before or after one of
// its changes, rebuilt from the file now (file-history-items.ts).
import { constants } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { RewindEngine } from '../core/engine';
import { absPath } from '../core/files';
import { changeVersions } from './commands/file-history-items';
import { Disposable } from './disposable';

export const SNAPSHOT_SCHEME = 'agent-rewind-snapshot';

export interface SnapshotQuery {
  sessionRef: string;
  anchorEntryId: string;
  /** Empty document: the side of a diff where the file does not exist. */
  empty?: boolean;
  /** The file as it is in the session's workspace folder now (read-only), instead of at the anchor. */
  now?: boolean;
}

/** One side of one change in a file's history: `file` is its absolute path, `entry` the change's index (newest first). */
export interface HistoryQuery {
  history: { file: string; entry: number; side: 'before' | 'after' };
}

export function snapshotUri(relPath: string, query: SnapshotQuery | HistoryQuery, label: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SNAPSHOT_SCHEME, path: `/${relPath}`, query: JSON.stringify(query), fragment: label });
}

export function parseSnapshotQuery(uri: vscode.Uri): SnapshotQuery | HistoryQuery {
  try {
    return JSON.parse(uri.query) as SnapshotQuery | HistoryQuery;
  } catch {
    throw new Error(`Not an Agent Rewind snapshot: ${uri.toString()}`);
  }
}

export class SnapshotDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changed = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;
  private watching = false;

  constructor(private readonly engine: RewindEngine) {
    super();
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = parseSnapshotQuery(uri);
    if ('history' in query) return this.historyText(query.history);
    if (query.empty) return '';
    const relPath = uri.path.replace(/^\//, '');
    if (query.now) {
      this.watchWorkspace();
      const root = await this.engine.workspaceRootOf(query.sessionRef);
      if (!root) throw new Error("This session's folder is not open in this window.");
      // absPath refuses '..', absolute paths and .git: a crafted uri reaches nothing outside the folder.
      return readFile(absPath(root, relPath), 'utf8').catch(() => '');
    }
    const bytes = await this.engine.fileAtAnchor(query.sessionRef, query.anchorEntryId, relPath);
    return bytes ? bytes.toString('utf8') : '';
  }

  /** The file before or after one change of its history (the engine checks the file is in an open folder). */
  private async historyText(q: HistoryQuery['history']): Promise<string> {
    const h = await this.engine.fileHistory(q.file);
    // as the engine read it for the history: the regular file at the path, never through a symlink at its end
    const nowText = await readFile(absPath(h.root, h.path), { encoding: 'utf8', flag: constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) }).catch(() => null);
    const versions = changeVersions(h.entries, nowText)[q.entry];
    if (!versions) throw new Error('This change cannot be shown as a whole file (a binary file, or a diff too large to keep).');
    return versions[q.side] ?? '';
  }

  /** Once a "now" document is open: any change of a workspace file refreshes the open "now" documents of its path. */
  private watchWorkspace(): void {
    if (this.watching || this.isDisposed) return;
    this.watching = true;
    const watcher = this._register(vscode.workspace.createFileSystemWatcher('**/*'));
    const refresh = (changed: vscode.Uri) => {
      for (const doc of vscode.workspace.textDocuments) {
        if (doc.uri.scheme !== SNAPSHOT_SCHEME || !changed.path.endsWith(doc.uri.path)) continue;
        const q = parseSnapshotQuery(doc.uri);
        if ('now' in q && q.now) this.changed.fire(doc.uri);
      }
    };
    this._register(watcher.onDidChange(refresh));
    this._register(watcher.onDidCreate(refresh));
    this._register(watcher.onDidDelete(refresh));
  }
}
