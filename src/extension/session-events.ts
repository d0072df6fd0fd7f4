// One place that says "these sessions changed": the watcher (other processes; the engine maps the paths it saw to the
// sessions whose stamp moved) and our own writes (so the UI follows at once instead of after the watcher's debounce).
import * as vscode from 'vscode';
import { Disposable } from './disposable';

export class SessionEvents extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<string[]>());
  /** Refs of the sessions that changed (core/sources/session-ref.ts; compared as they are, never resolved as paths). */
  readonly onDidChange = this.changed.event;

  fire(refs: readonly string[]): void {
    if (refs.length) this.changed.fire([...refs]);
  }

  /** Listens for changes of one session. */
  onDidChangeFile(sessionRef: string, listener: () => void): vscode.Disposable {
    return this.onDidChange((refs) => {
      if (refs.includes(sessionRef)) listener();
    });
  }
}
