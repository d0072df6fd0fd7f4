// The Compare branches panel (viewType agentRewind.compareBranches): two branches of a session side by side. One at
// a time: comparing another pair reuses the open panel. It only reads; clicking a file opens VS Code's diff editor.
//
// Entry point (constructed by the extension's command glue):
//   ComparePanel.show(extensionUri: vscode.Uri, ref: CompareRef, services: CompareServices, ui?: PanelUi): ComparePanel
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { CompareController } from './compare-controller';
import type { PanelUi } from './panel-ui';
import type { CompareRef, CompareServices } from './services';
import { vscodePanelUi } from './vscode-panel-ui';
import { panelIcon, renderWebviewPage, webviewOptions } from './webview-page';

export class ComparePanel extends Disposable {
  static readonly viewType = 'agentRewind.compareBranches';
  static readonly title = 'Compare branches';
  private static _current: ComparePanel | undefined;

  static get current(): ComparePanel | undefined {
    return ComparePanel._current;
  }

  static show(extensionUri: vscode.Uri, ref: CompareRef, services: CompareServices, ui: PanelUi = vscodePanelUi()): ComparePanel {
    const existing = ComparePanel._current;
    if (existing && existing.services === services) {
      void existing.controller.retarget(ref);
      existing.panel.title = titleOf(ref);
      existing.panel.reveal();
      return existing;
    }
    existing?.dispose();
    const panel = vscode.window.createWebviewPanel(ComparePanel.viewType, titleOf(ref), vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: false,
      enableFindWidget: true,
    });
    return new ComparePanel(panel, extensionUri, ref, services, ui);
  }

  private readonly controller: CompareController;
  private closing = false;

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    ref: CompareRef,
    private readonly services: CompareServices,
    ui: PanelUi,
  ) {
    super();
    ComparePanel._current = this;
    panel.iconPath = panelIcon(extensionUri);
    this.controller = this._register(
      new CompareController(ref, services, (m) => panel.webview.postMessage(m), ui, {
        onModel: (model) => (panel.title = titleOf({ ...this.controller.target, branchA: model.a.name, branchB: model.b.name })),
      }),
    );
    this._register(panel.webview.onDidReceiveMessage((m: unknown) => this.controller.handle(m)));
    this._register(panel.onDidDispose(() => this.dispose()));
    panel.webview.html = renderWebviewPage(panel.webview, extensionUri, 'compare', ComparePanel.title);
    void this.controller.compute();
  }

  get target(): CompareRef {
    return this.controller.target;
  }

  override dispose(): void {
    if (this.closing) return;
    this.closing = true;
    if (ComparePanel._current === this) ComparePanel._current = undefined;
    super.dispose();
    this.panel.dispose();
  }
}

function titleOf(ref: CompareRef): string {
  const twoSessions = ref.sessionRefB !== undefined && ref.sessionRefB !== ref.sessionRef;
  return `Compare: ${ref.branchA} ↔ ${ref.branchB}${twoSessions ? ' (two sessions)' : ''}`;
}
