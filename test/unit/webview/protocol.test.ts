// The message protocol: schemas accept what the webviews send and reject anything else; requests round-trip
// through RequestClient with typed results and errors; host → webview messages get in only through the guard derived
// from their declarations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_ROWS_PER_REQUEST,
  parseMessage,
  previewToHostSchema,
  transcriptToHostSchema,
  type PreviewResults,
  type PreviewToHost,
  type TranscriptResults,
  type TranscriptToHost,
} from '../../../src/shared/protocol';
import { RequestClient, responderFor } from '../../../src/shared/request-client';
import { isIpc } from '../../../src/shared/ipc';
import { compareToWebview, previewToWebview, transcriptToWebview, type TranscriptToWebview } from '../../../src/shared/to-webview';

describe('transcript webview → host messages', () => {
  const valid: TranscriptToHost[] = [
    { type: 'ready' },
    { type: 'rows', requestId: 1, version: 0, start: 0, count: 200 },
    { type: 'rewindToHere', entryId: 'a1b2c3d4' },
    { type: 'fork', entryId: 'a1b2c3d4' },
    { type: 'label', entryId: 'a1b2c3d4' },
    { type: 'copyId', requestId: 2, entryId: 'a1b2c3d4' },
    { type: 'switchBranch', branch: 'main' },
    { type: 'showBranch', branch: 'main' },
  ];
  for (const message of valid) {
    it(`accepts ${message.type}`, () => assert.deepEqual(parseMessage(transcriptToHostSchema, message), message));
  }

  const malformed: [string, unknown][] = [
    ['null', null],
    ['a string', 'ready'],
    ['an unknown type', { type: 'deleteEverything' }],
    ['no type', { entryId: 'x' }],
    ['an extra field', { type: 'ready', html: '<b>' }],
    ['an empty entry id', { type: 'fork', entryId: '' }],
    ['a numeric entry id', { type: 'fork', entryId: 5 }],
    ['a huge entry id', { type: 'label', entryId: 'x'.repeat(10_000) }],
    ['too many rows', { type: 'rows', requestId: 1, version: 0, start: 0, count: MAX_ROWS_PER_REQUEST + 1 }],
    ['a negative start', { type: 'rows', requestId: 1, version: 0, start: -1, count: 10 }],
    ['a fractional request id', { type: 'rows', requestId: 1.5, version: 0, start: 0, count: 10 }],
    ['a missing request id', { type: 'copyId', entryId: 'x' }],
    ['an empty branch', { type: 'switchBranch', branch: '' }],
  ];
  for (const [what, raw] of malformed) {
    it(`rejects ${what}`, () => assert.equal(parseMessage(transcriptToHostSchema, raw), undefined));
  }
});

describe('preview webview → host messages', () => {
  it('accepts the valid ones', () => {
    const valid: PreviewToHost[] = [
      { type: 'ready' },
      { type: 'openFileDiff', path: 'src/a.ts' },
      { type: 'confirm', requestId: 1, mode: 'all', overwriteUserModified: false },
      { type: 'confirm', requestId: 2, mode: 'conversation', overwriteUserModified: true },
      { type: 'confirm', requestId: 3, mode: 'files', overwriteUserModified: false },
      { type: 'cancel' },
      { type: 'refresh' },
      { type: 'editorChat', action: 'open' },
      { type: 'editorChat', action: 'restoreCheckpoint' },
    ];
    for (const m of valid) assert.deepEqual(parseMessage(previewToHostSchema, m), m);
  });
  it('rejects an unknown mode, a stringly boolean, a missing request id and an empty path', () => {
    for (const raw of [
      { type: 'confirm', requestId: 1, mode: 'everything', overwriteUserModified: false },
      { type: 'confirm', requestId: 1, mode: 'all', overwriteUserModified: 'false' },
      { type: 'confirm', mode: 'all', overwriteUserModified: false },
      { type: 'openFileDiff', path: '' },
      { type: 'openFileDiff' },
      { type: 'cancel', now: true },
      { type: 'editorChat', action: 'deleteSession' },
      { type: 'editorChat', action: 'open', command: 'workbench.action.quit' },
    ]) {
      assert.equal(parseMessage(previewToHostSchema, raw), undefined, JSON.stringify(raw));
    }
  });
  it('does not accept transcript messages', () => {
    assert.equal(parseMessage(previewToHostSchema, { type: 'fork', entryId: 'x' }), undefined);
  });
});

describe('RequestClient', () => {
  it('round-trips a request: ids are assigned, the typed result comes back, and JSON cloning loses nothing', async () => {
    const sent: TranscriptToHost[] = [];
    const client = new RequestClient<TranscriptToHost, TranscriptResults>((m) => sent.push(structuredClone(m)));
    const pending = client.request('rows', (requestId) => ({ type: 'rows', version: 3, start: 200, count: 200, requestId }));
    assert.equal(sent.length, 1);
    const request = parseMessage(transcriptToHostSchema, JSON.parse(JSON.stringify(sent[0])));
    assert.ok(request && request.type === 'rows');
    const items = [{ entryId: 'e1', kind: 'user' as const, markdown: 'hi' }];
    const answer = JSON.parse(JSON.stringify(responderFor<TranscriptResults>()(request, { ok: true, result: { version: 3, start: 200, items } })));
    assert.equal(client.handle(answer), true);
    assert.deepEqual(await pending, { version: 3, start: 200, items });
    assert.equal(client.pendingCount, 0);
  });

  it('keeps concurrent requests apart and rejects with the host error message', async () => {
    const sent: PreviewToHost[] = [];
    const client = new RequestClient<PreviewToHost, PreviewResults>((m) => sent.push(m));
    const a = client.request('confirm', (requestId) => ({ type: 'confirm', mode: 'all', overwriteUserModified: false, requestId }));
    const b = client.request('confirm', (requestId) => ({ type: 'confirm', mode: 'files', overwriteUserModified: true, requestId }));
    const [ida, idb] = sent.map((m) => ('requestId' in m ? m.requestId : -1));
    assert.notEqual(ida, idb);
    const respond = responderFor<PreviewResults>();
    client.handle(respond({ type: 'confirm', requestId: idb! }, { ok: false, error: 'The files changed on disk.' }));
    client.handle(respond({ type: 'confirm', requestId: ida! }, { ok: true, result: { summary: 'Rewound 2 files' } }));
    assert.deepEqual(await a, { summary: 'Rewound 2 files' });
    await assert.rejects(b, /The files changed on disk\./);
  });

  it('holds the host to the result type its protocol declares for each request (a type check: npm run typecheck)', () => {
    const respond = responderFor<TranscriptResults>();
    const rows = { type: 'rows' as const, requestId: 1 };
    assert.equal(respond(rows, { ok: true, result: { version: 1, start: 0, items: [] } }).ok, true);
    // @ts-expect-error a rows request answered with another request's result
    respond(rows, { ok: true, result: { copied: 'x' } });
    // @ts-expect-error a request type the view does not have
    respond({ type: 'confirm', requestId: 2 }, { ok: false, error: 'no' });
  });

  it('ignores non-responses and unknown ids, and rejects what is open on dispose', async () => {
    const client = new RequestClient<PreviewToHost, PreviewResults>(() => undefined);
    const p = client.request('confirm', (requestId) => ({ type: 'confirm', mode: 'all', overwriteUserModified: false, requestId }));
    assert.equal(client.handle({ type: 'model' }), false);
    assert.equal(client.handle({ type: 'response', requestId: 999, ok: true, result: {} }), false);
    assert.equal(client.handle(null), false);
    client.dispose();
    await assert.rejects(p, /closed/);
  });

  it('refuses a built message of another type or without the id it was given, and sends nothing', async () => {
    const sent: PreviewToHost[] = [];
    const client = new RequestClient<PreviewToHost, PreviewResults>((m) => sent.push(m));
    await assert.rejects(
      client.request('confirm', () => ({ type: 'confirm', mode: 'all', overwriteUserModified: false, requestId: 12345 })),
      /must be of that type and carry its id/,
    );
    assert.equal(sent.length, 0);
    assert.equal(client.pendingCount, 0);
  });
});

describe('host → webview messages: one declaration each, and the guard derived from it', () => {
  it("lets in an object whose type this view declares, and nothing else (another view's message, a non-object)", () => {
    const model: TranscriptToWebview = { type: 'model', version: 1, model: { title: 't' } as never, sessionRef: '/s.jsonl' };
    assert.equal(isIpc(transcriptToWebview, model), true);
    assert.equal(isIpc(transcriptToWebview, { type: 'response', requestId: 1, ok: false, error: 'x' }), true);
    assert.equal(isIpc(transcriptToWebview, { type: 'loading' }), false, 'a preview message');
    assert.equal(isIpc(previewToWebview, { type: 'loading' }), true);
    assert.equal(isIpc(compareToWebview, { type: 'notice', message: 'x', severity: 'info' }), false);
    for (const junk of [null, undefined, 'model', 42, {}, { type: 7 }, { type: 'toString' }, { type: 'constructor' }])
      assert.equal(isIpc(transcriptToWebview, junk), false, String(junk));
  });

  it('narrows by type without a cast on either side', () => {
    const posted: unknown = { type: 'revealEntry', entryId: 'e1', version: 2, target: { on: 'noBranch', preview: 'p' } };
    assert.ok(isIpc(transcriptToWebview, posted));
    assert.equal(posted.type, 'revealEntry');
    if (posted.type === 'revealEntry') assert.equal(posted.target.on, 'noBranch');
  });
});
