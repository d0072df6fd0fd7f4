// Feeds the file-checkpoint tracker with what VS Code's own watcher sees in the workspace folders, so a snapshot
// looks at the changed paths instead of walking the whole tree. Started only once something needs snapshots.
// VS Code reports late (its own batching plus ours), so the engine gets the feed's cookie barrier too: a snapshot
// waits until everything changed before it has been reported.
import * as vscode from 'vscode';
import type { RewindEngine } from '../core/engine';
import { ChangeFeed } from '../core/files';
import { Disposable } from './disposable';

const BATCH_MS = 100;

export class WorkspaceFileWatcher extends Disposable {
  constructor(engine: RewindEngine) {
    super();
    const feed = new ChangeFeed({ sink: (paths) => engine.pathsChanged(paths), batchMs: BATCH_MS });
    const watcher = this._register(vscode.workspace.createFileSystemWatcher('**/*'));
    const note = (uri: vscode.Uri) => {
      if (uri.scheme === 'file') feed.note([uri.fsPath]);
    };
    this._register(watcher.onDidCreate(note));
    this._register(watcher.onDidChange(note));
    this._register(watcher.onDidDelete(note));
    engine.useWatcherSync((root) => feed.settle(root));
    this._register({
      dispose: () => {
        engine.useWatcherSync(undefined);
        feed.dispose();
      },
    });
  }
}
