// What both panels share: which local folders a webview may load from, and its page with a fresh nonce.
import * as vscode from 'vscode';
import { createNonce, webviewPage } from './html';

export type WebviewBundle = 'transcript' | 'preview' | 'compare';

/** Scripts on, command URIs off, and only the extension's built webview code and codicons may be loaded. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'dist', 'codicons')],
  };
}

export function renderWebviewPage(webview: vscode.Webview, extensionUri: vscode.Uri, bundle: WebviewBundle, title: string): string {
  const uri = (...parts: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...parts)).toString();
  return webviewPage({
    cspSource: webview.cspSource,
    nonce: createNonce(),
    scriptUri: uri('dist', 'webview', `${bundle}.js`),
    styleUris: [uri('dist', 'codicons', 'codicon.css'), uri('dist', 'webview', `${bundle}.css`)],
    title,
  });
}

export function panelIcon(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'media', 'agent-rewind.svg');
}
