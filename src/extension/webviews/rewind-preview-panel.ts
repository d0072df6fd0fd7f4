// The Rewind preview panel (viewType agentRewind.rewindPreview, title "Rewind preview"): a dry run of "Rewind to
// here" that changes nothing until Confirm. One at a time: previewing another message reuses the open panel.
//
// Entry point (constructed by the extension's command glue, e.g. from TranscriptServices.previewRewind):
//   RewindPreviewPanel.show(extensionUri: vscode.Uri, ref: SessionTarget, anchorEntryId: string, services: PreviewServices, ui?: PanelUi): RewindPreviewPanel
//   RewindPreviewPanel.current: RewindPreviewPanel | undefined
// After Confirm the panel runs services.apply under a progress notification, closes, and shows
// "Rewound …" with an Undo button that runs agentRewind.undoLastRewind with { sessionRef }.
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { PanelUi } from './panel-ui';
import { RewindPreviewController } from './preview-controller';
import type { PreviewServices, SessionTarget } from './services';
import { vscodePanelUi } from './vscode-panel-ui';
import { panelIcon, renderWebviewPage, webviewOptions } from './webview-page';

export class RewindPreviewPanel extends Disposable {
  static readonly viewType = 'agentRewind.rewindPreview';
  static readonly title = 'Rewind preview';
  private static _current: RewindPreviewPanel | undefined;

  static get current(): RewindPreviewPanel | undefined {
    return RewindPreviewPanel._current;
  }

  static show(
    extensionUri: vscode.Uri,
    ref: SessionTarget,
    anchorEntryId: string,
    services: PreviewServices,
    ui: PanelUi = vscodePanelUi(),
  ): RewindPreviewPanel {
    const existing = RewindPreviewPanel._current;
    if (existing && existing.services === services) {
      void existing.controller.retarget(ref, anchorEntryId);
      existing.panel.reveal();
      return existing;
    }
    existing?.dispose();
    const panel = vscode.window.createWebviewPanel(RewindPreviewPanel.viewType, RewindPreviewPanel.title, vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: false,
    });
    return new RewindPreviewPanel(panel, extensionUri, ref, anchorEntryId, services, ui);
  }

  private readonly controller: RewindPreviewController;
  private closing = false;

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    ref: SessionTarget,
    anchorEntryId: string,
    private readonly services: PreviewServices,
    ui: PanelUi,
  ) {
    super();
    RewindPreviewPanel._current = this;
    panel.iconPath = panelIcon(extensionUri);
    this.controller = this._register(
      new RewindPreviewController(
        ref,
        anchorEntryId,
        services,
        (m) => panel.webview.postMessage(m),
        ui,
        () => this.dispose(),
      ),
    );
    this._register(panel.webview.onDidReceiveMessage((m: unknown) => this.controller.handle(m)));
    this._register(panel.onDidDispose(() => this.dispose()));
    panel.webview.html = renderWebviewPage(panel.webview, extensionUri, 'preview', RewindPreviewPanel.title);
  }

  get target(): { ref: SessionTarget; anchorEntryId: string } {
    return this.controller.target;
  }

  override dispose(): void {
    if (this.closing) return;
    this.closing = true;
    if (RewindPreviewPanel._current === this) RewindPreviewPanel._current = undefined;
    super.dispose();
    this.panel.dispose();
  }
}
