// "The folder's timeline grew": its file (`<store>/timeline.jsonl`, core/files/timeline.ts) gets a line with every
// snapshot any session of any agent takes there, whichever process takes it (a hook, the CLI, the service, us). The
// Workspace Timeline view and agent blame follow it. A store folder that does not exist yet (no snapshot so far) is
// watched once the session events say something happened (`ensureWatching`), never by polling.
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { Disposable, type DisposableLike } from './disposable';

const DEBOUNCE_MS = 300;

export class TimelineWatcher extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private watchers: DisposableLike[] = [];
  private missing = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly files: () => string[]) {
    super();
    this._register({ dispose: () => this.clear() });
  }

  /** Watches the timeline files of the folders open now. */
  watch(): void {
    this.clear();
    this.missing = false;
    for (const file of this.files()) {
      if (!existsSync(dirname(file))) {
        this.missing = true;
        continue;
      }
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dirname(file)), basename(file)));
      const note = () => this.note();
      w.onDidCreate(note);
      w.onDidChange(note);
      w.onDidDelete(note);
      this.watchers.push(w);
    }
  }

  /** Something happened in the workspace (a session changed): a store folder that was missing may be there now. */
  ensureWatching(): void {
    if (this.missing && !this.isDisposed) {
      this.watch();
      this.note();
    }
  }

  private note(): void {
    if (this.timer || this.isDisposed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.isDisposed) this.changed.fire();
    }, DEBOUNCE_MS);
  }

  private clear(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
