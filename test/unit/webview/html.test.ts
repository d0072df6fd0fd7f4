// The webview page: strict CSP, a fresh nonce, and only our own script and styles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentSecurityPolicy, createNonce, webviewPage } from '../../../src/extension/webviews/html';

const page = (nonce: string) =>
  webviewPage({
    cspSource: 'https://*.vscode-cdn.net',
    nonce,
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/transcript.js',
    styleUris: ['https://file+.vscode-resource.vscode-cdn.net/ext/dist/codicons/codicon.css'],
    title: 'Transcript <x>',
  });

describe('webview page', () => {
  it('denies everything by default and allows scripts only by nonce', () => {
    const csp = contentSecurityPolicy('https://*.vscode-cdn.net', 'abc');
    const directives = Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    assert.deepEqual(directives, {
      'default-src': "'none'",
      'img-src': 'https://*.vscode-cdn.net data:',
      'style-src': "https://*.vscode-cdn.net 'nonce-abc'",
      'font-src': 'https://*.vscode-cdn.net',
      'script-src': "'nonce-abc'",
    });
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*;|https:\s/);
  });

  it('puts the nonce on every script and stylesheet, and has no inline script', () => {
    const html = page('n0nce');
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    assert.match(scripts[0]![1]!, /nonce="n0nce" src="https:\/\/file\+\.vscode-resource/);
    assert.equal(scripts[0]![2], '');
    assert.match(html, /<link rel="stylesheet" nonce="n0nce" href=/);
    assert.match(html, /<title>Transcript &lt;x&gt;<\/title>/);
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  });

  it('makes a new unguessable nonce each time', () => {
    const nonces = new Set(Array.from({ length: 100 }, createNonce));
    assert.equal(nonces.size, 100);
    for (const n of nonces) assert.ok(Buffer.from(n, 'base64').length === 16);
  });
});
