// Feeds the file-checkpoint tracker with what VS Code's own watcher sees in the workspace folders, so a snapshot
// looks at the changed paths instead of walking the whole tree. Started only once something needs snapshots.
import * as vscode from 'vscode';
import type { RewindEngine } from '../core/engine/engine';
import { Disposable } from './disposable';

const BATCH_MS = 100;

export class WorkspaceFileWatcher extends Disposable {
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly engine: RewindEngine) {
    super();
    const watcher = this._register(vscode.workspace.createFileSystemWatcher('**/*'));
    const note = (uri: vscode.Uri) => {
      if (uri.scheme !== 'file') return;
      this.pending.add(uri.fsPath);
      this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
    };
    this._register(watcher.onDidCreate(note));
    this._register(watcher.onDidChange(note));
    this._register(watcher.onDidDelete(note));
    this._register({ dispose: () => this.timer && clearTimeout(this.timer) });
  }

  private flush(): void {
    this.timer = undefined;
    const paths = [...this.pending];
    this.pending.clear();
    if (paths.length && !this.isDisposed) this.engine.pathsChanged(paths);
  }
}
