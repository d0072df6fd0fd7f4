// Watches the folders the adapters name for this workspace's sessions and reports which paths changed, debounced, so the
// tree, the status bar and open transcripts follow other processes (the CLI, pi, an agent extension) without a
// reload. A folder that does not exist yet (no session so far) is checked again now and then, then watched.
import { stat } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { WatchedFolder as SessionFolder } from '../core/sources';
import { Disposable, toDisposable, type DisposableLike } from './disposable';

const DEBOUNCE_MS = 200;
const MISSING_FOLDER_POLL_MS = 2000;

export class SessionWatcher extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<string[]>());
  /** Fires with the session files that changed (created, appended, deleted) since the last event. */
  readonly onDidChange = this.changed.event;
  private watchers: DisposableLike[] = [];
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  /** Bumped by every watch(): checks still running for an older folder list then do nothing. */
  private generation = 0;

  constructor() {
    super();
    this._register(toDisposable(() => this.clear()));
  }

  /** Watches exactly these folders from now on. */
  watch(folders: readonly SessionFolder[]): void {
    this.clear();
    const generation = ++this.generation;
    const missing: SessionFolder[] = [];
    void Promise.all(
      folders.map(async (folder) => {
        const exists = await stat(folder.path).then(
          (s) => s.isDirectory(),
          () => false,
        );
        if (this.isDisposed || generation !== this.generation) return;
        if (exists) this.watchFolder(folder);
        else missing.push(folder);
      }),
    ).then(() => this.pollMissing(missing, generation));
  }

  private watchFolder(folder: SessionFolder): void {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(folder.path), folder.pattern ?? '*.jsonl'));
    const note = (uri: vscode.Uri) => this.note(uri.fsPath);
    watcher.onDidCreate(note);
    watcher.onDidChange(note);
    watcher.onDidDelete(note);
    this.watchers.push(watcher);
  }

  private pollMissing(missing: SessionFolder[], generation: number): void {
    if (missing.length === 0 || this.isDisposed || generation !== this.generation) return;
    this.poll = setTimeout(async () => {
      const still: SessionFolder[] = [];
      for (const folder of missing) {
        const exists = await stat(folder.path).then(
          (s) => s.isDirectory(),
          () => false,
        );
        if (this.isDisposed || generation !== this.generation) return;
        if (exists) {
          this.watchFolder(folder);
          // Files may have been written before the watcher started: report the folder's appearance.
          this.note(folder.path);
        } else {
          still.push(folder);
        }
      }
      this.pollMissing(still, generation);
    }, MISSING_FOLDER_POLL_MS);
  }

  private note(path: string): void {
    this.pending.add(path);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const files = [...this.pending];
      this.pending.clear();
      if (!this.isDisposed) this.changed.fire(files);
    }, DEBOUNCE_MS);
  }

  private clear(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    if (this.poll) clearTimeout(this.poll);
    this.poll = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
