// The Transcript panel (viewType agentRewind.transcript): one per session; showing it again reveals it.
//
// Entry points (constructed by the extension's command glue):
//   TranscriptPanel.show(extensionUri: vscode.Uri, ref: SessionTarget, services: TranscriptServices, ui?: PanelUi): TranscriptPanel
//   TranscriptPanel.revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, state: unknown, services: TranscriptServices, ui?: PanelUi): TranscriptPanel | undefined
//     (for a vscode.WebviewPanelSerializer registered for TranscriptPanel.viewType; `state` is what the webview saved)
//   TranscriptPanel.get(ref: SessionTarget): TranscriptPanel | undefined;  panel.refresh(): Promise<void>
//   panel.revealEntry(entryId: string): Promise<void>  (scroll to a message, or say which branch holds it)
// retainContextWhenHidden is off: the webview saves its scroll position and expanded rows with setState and gets
// its rows again from the host when it is shown again.
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { PanelUi } from './panel-ui';
import type { SessionTarget, TranscriptServices } from './services';
import { TranscriptController } from './transcript-controller';
import { vscodePanelUi } from './vscode-panel-ui';
import { panelIcon, renderWebviewPage, webviewOptions } from './webview-page';

export class TranscriptPanel extends Disposable {
  static readonly viewType = 'agentRewind.transcript';
  private static readonly open = new Map<string, TranscriptPanel>();

  static show(extensionUri: vscode.Uri, ref: SessionTarget, services: TranscriptServices, ui: PanelUi = vscodePanelUi()): TranscriptPanel {
    const existing = TranscriptPanel.open.get(ref.sessionRef);
    if (existing) {
      existing.panel.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(TranscriptPanel.viewType, 'Transcript', vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: false,
      enableFindWidget: true,
    });
    return new TranscriptPanel(panel, extensionUri, ref, services, ui);
  }

  static revive(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    state: unknown,
    services: TranscriptServices,
    ui: PanelUi = vscodePanelUi(),
  ): TranscriptPanel | undefined {
    // `sessionFile`: the state a window saved before sessions were named by refs.
    const saved = typeof state === 'object' && state !== null ? (state as { sessionRef?: unknown; sessionFile?: unknown }) : {};
    const sessionRef = saved.sessionRef ?? saved.sessionFile;
    if (typeof sessionRef !== 'string' || sessionRef === '' || TranscriptPanel.open.has(sessionRef)) {
      panel.dispose();
      return undefined;
    }
    return new TranscriptPanel(panel, extensionUri, { sessionRef }, services, ui);
  }

  static get(ref: SessionTarget): TranscriptPanel | undefined {
    return TranscriptPanel.open.get(ref.sessionRef);
  }

  private readonly controller: TranscriptController;
  private closing = false;

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    readonly ref: SessionTarget,
    services: TranscriptServices,
    ui: PanelUi,
  ) {
    super();
    TranscriptPanel.open.set(ref.sessionRef, this);
    panel.iconPath = panelIcon(extensionUri);
    panel.webview.options = webviewOptions(extensionUri);
    this.controller = this._register(
      new TranscriptController(ref, services, (m) => panel.webview.postMessage(m), ui, {
        onModel: (model) => (panel.title = `Transcript: ${model.title}`),
      }),
    );
    this._register(panel.webview.onDidReceiveMessage((m: unknown) => this.controller.handle(m)));
    this._register(panel.onDidDispose(() => this.dispose()));
    panel.webview.html = renderWebviewPage(panel.webview, extensionUri, 'transcript', 'Transcript');
    void this.controller.refresh();
  }

  refresh(): Promise<void> {
    return this.controller.refresh();
  }

  /** Scrolls to a message and highlights it (or says which branch holds it), as soon as the webview can show it. */
  showBranch(name: string): Promise<void> {
    return this.controller.showBranch(name);
  }

  revealEntry(entryId: string): Promise<void> {
    return this.controller.reveal(entryId);
  }

  override dispose(): void {
    if (this.closing) return;
    this.closing = true;
    if (TranscriptPanel.open.get(this.ref.sessionRef) === this) TranscriptPanel.open.delete(this.ref.sessionRef);
    super.dispose();
    this.panel.dispose();
  }
}
