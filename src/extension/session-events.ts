// One place that says "this session file changed": the folder watcher (other processes) and our own writes (so the
// UI follows at once instead of after the watcher's debounce).
import * as vscode from 'vscode';
import { resolve } from 'node:path';
import { Disposable } from './disposable';

export class SessionEvents extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<string[]>());
  /** Session files (resolved paths) that changed; a folder path means "something in it appeared". */
  readonly onDidChange = this.changed.event;

  fire(files: readonly string[]): void {
    if (files.length) this.changed.fire(files.map((f) => resolve(f)));
  }

  /** Listens for changes of one session file. */
  onDidChangeFile(sessionRef: string, listener: () => void): vscode.Disposable {
    const file = resolve(sessionRef);
    return this.onDidChange((files) => {
      if (files.includes(file)) listener();
    });
  }
}
