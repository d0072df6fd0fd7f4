// "$(history) <session title> · <branch>" in the status bar; clicking it switches branch through a quick pick.
import * as vscode from 'vscode';
import { type RewindEngine, oneLine } from '../core/engine';
import type { ActiveSession } from './active-session';
import { Disposable } from './disposable';

export class BranchStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('agentRewind.branch', vscode.StatusBarAlignment.Left, 50));
  private generation = 0;

  constructor(
    private readonly engine: RewindEngine,
    private readonly active: ActiveSession,
  ) {
    super();
    this.item.name = 'Agent Rewind Branch';
    this.item.command = 'agentRewind.switchBranch';
    this._register(active.onDidChange(() => void this.refresh()));
  }

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    let text: string | undefined;
    let tooltip: string | undefined;
    try {
      const file = await this.active.current();
      if (file) {
        const details = await this.engine.describeSession(file);
        const branch = details.branches.find((b) => b.isActive);
        text = `$(history) ${oneLine(details.listing.title, 40)} · ${branch?.name ?? 'main'}`;
        tooltip = `Agent Rewind: ${details.listing.title}\nBranch ${branch?.name ?? 'main'} (${details.branches.length} in this session)\nClick to switch branch`;
      }
    } catch (error) {
      text = '$(history) Agent Rewind: session unreadable';
      tooltip = (error as Error).message;
    }
    // A slower, older refresh must not overwrite a newer one.
    if (generation !== this.generation || this.isDisposed) return;
    if (text) {
      this.item.text = text;
      this.item.tooltip = tooltip;
      this.item.show();
    } else {
      this.item.hide();
    }
  }
}
