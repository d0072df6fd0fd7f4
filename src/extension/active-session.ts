// The session the status bar shows and palette commands act on by default: the one the user last opened (kept per
// workspace), else the workspace's newest session.
import * as vscode from 'vscode';
import type { RewindEngine } from '../core/engine';
import { Disposable } from './disposable';

const KEY = 'agentRewind.activeSessionFile';

export class ActiveSession extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<string | undefined>());
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly engine: RewindEngine,
    private readonly state: vscode.Memento,
  ) {
    super();
  }

  /** The remembered session if it still exists, else the newest one; undefined when the workspace has none. */
  async current(): Promise<string | undefined> {
    const remembered = this.state.get<string>(KEY);
    if (remembered) {
      try {
        await this.engine.session(remembered);
        return remembered;
      } catch {
        await this.state.update(KEY, undefined);
      }
    }
    const [newest] = await this.engine.listSessions();
    return newest?.sessionRef;
  }

  async set(sessionRef: string): Promise<void> {
    if (this.state.get<string>(KEY) === sessionRef) return;
    await this.state.update(KEY, sessionRef);
    this.changed.fire(sessionRef);
  }
}
