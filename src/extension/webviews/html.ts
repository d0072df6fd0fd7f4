// The HTML page of a webview: a strict Content-Security-Policy with a fresh nonce per render, the extension's own
// script and styles from dist/, and nothing else. No `vscode` import, so it is unit-tested in Node.
import { randomBytes } from 'node:crypto';

export interface WebviewPageOptions {
  /** webview.cspSource */
  cspSource: string;
  nonce: string;
  /** Browser URIs (webview.asWebviewUri) of the bundle and its styles. */
  scriptUri: string;
  styleUris: string[];
  title: string;
}

/** 128 random bits, base64: a nonce nobody can guess, new for every page. */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    `default-src 'none'`,
    `img-src ${cspSource} data:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function webviewPage(o: WebviewPageOptions): string {
  const styles = o.styleUris.map((href) => `<link rel="stylesheet" nonce="${escapeAttr(o.nonce)}" href="${escapeAttr(href)}">`).join('\n    ');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(o.cspSource, o.nonce))}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    ${styles}
    <title>${escapeAttr(o.title)}</title>
  </head>
  <body>
    <div id="app"></div>
    <script nonce="${escapeAttr(o.nonce)}" src="${escapeAttr(o.scriptUri)}"></script>
  </body>
</html>`;
}
