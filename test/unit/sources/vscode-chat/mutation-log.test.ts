// The replay of VS Code's chat session log, one rule at a time, on logs written by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replayMutationLog } from '../../../../src/core/sources/vscode-chat/mutation-log';
import { replayChatFile } from '../../../../src/core/sources/vscode-chat/reader';
import { initialState, lines, request } from './builder';

const replay = (text: string) => replayMutationLog(Buffer.from(text));
const ids = (state: Record<string, unknown> | undefined) => (state?.requests as { requestId: string }[]).map((r) => r.requestId);

test('kind 0 is the whole state', () => {
  const r = replay(lines({ kind: 0, v: initialState({ requests: [request(1, 'one')] }) }));
  assert.deepEqual(ids(r.state), ['request_0001']);
  assert.deepEqual(r.skipped, []);
  assert.equal(r.tornBytes, 0);
});

test('kind 1 sets the value at a path, creating the key', () => {
  const r = replay(
    lines(
      { kind: 0, v: initialState({ requests: [request(1, 'one')] }) },
      { kind: 1, k: ['customTitle'], v: 'Renamed' },
      { kind: 1, k: ['requests', 0, 'modelState'], v: { value: 2 } },
      { kind: 1, k: ['inputState', 'mode'], v: { id: 'ask', kind: 'ask' } },
    ),
  );
  assert.equal(r.state!.customTitle, 'Renamed');
  assert.deepEqual((r.state!.requests as { modelState: unknown }[])[0]!.modelState, { value: 2 });
  assert.deepEqual((r.state!.inputState as { mode: unknown }).mode, { id: 'ask', kind: 'ask' });
});

test('kind 2 pushes onto an array, creating a missing one', () => {
  const r = replay(
    lines(
      { kind: 0, v: initialState() },
      { kind: 2, k: ['requests'], v: [request(1, 'one')] },
      { kind: 2, k: ['requests'], v: [request(2, 'two'), request(3, 'three')] },
      { kind: 2, k: ['requests', 0, 'response'], v: [{ value: ' more' }] },
      { kind: 2, k: ['requests', 0, 'editedFileEvents'], v: [{ eventKind: 1 }] },
    ),
  );
  assert.deepEqual(ids(r.state), ['request_0001', 'request_0002', 'request_0003']);
  const first = (r.state!.requests as { response: unknown[]; editedFileEvents: unknown[] }[])[0]!;
  assert.equal(first.response.length, 2);
  assert.deepEqual(first.editedFileEvents, [{ eventKind: 1 }]);
  assert.deepEqual(r.removed, []);
});

test('kind 2 with i cuts the array first; requests it cuts are kept as removed, after the one they followed', () => {
  const r = replay(
    lines(
      { kind: 0, v: initialState({ requests: [request(1, 'one'), request(2, 'two'), request(3, 'three')] }) },
      // the last response part replaced (not a request removed)
      { kind: 2, k: ['requests', 2, 'response'], v: [{ value: 'replaced' }], i: 0 },
      // request 2 edited and sent again: 2 and 3 cut, the new one pushed
      { kind: 2, k: ['requests'], v: [request(4, 'two, again')], i: 1 },
      // a cut without values
      { kind: 2, k: ['pendingRequests'], i: 0 },
    ),
  );
  assert.deepEqual(ids(r.state), ['request_0001', 'request_0004']);
  assert.equal(r.removed.length, 1);
  assert.equal(r.removed[0]!.afterRequestId, 'request_0001');
  assert.deepEqual(
    r.removed[0]!.requests.map((q) => q.requestId),
    ['request_0002', 'request_0003'],
  );
  assert.deepEqual((r.removed[0]!.requests[1]!.response as unknown[])[0], { value: 'replaced' });
  assert.equal(r.removed[0]!.line, 3);
});

test('the first request cut is removed with no request before it', () => {
  const r = replay(lines({ kind: 0, v: initialState({ requests: [request(1, 'one')] }) }, { kind: 2, k: ['requests'], i: 0 }));
  assert.deepEqual(ids(r.state), []);
  assert.equal(r.removed[0]!.afterRequestId, undefined);
});

test('kind 3 deletes the value at a path', () => {
  const r = replay(
    lines(
      { kind: 0, v: initialState({ customTitle: 'Old title', requests: [request(1, 'one')] }) },
      { kind: 3, k: ['customTitle'] },
      { kind: 3, k: ['requests', 0, 'modelState'] },
    ),
  );
  assert.equal('customTitle' in r.state!, false);
  assert.equal('modelState' in (r.state!.requests as object[])[0]!, false);
});

test('a compaction (a new initial line) replaces the state, and requests it no longer holds are removed', () => {
  const r = replay(
    lines(
      { kind: 0, v: initialState({ requests: [request(1, 'one')] }) },
      { kind: 2, k: ['requests'], v: [request(2, 'two')] },
      { kind: 0, v: initialState({ customTitle: 'compacted', requests: [request(1, 'one'), request(3, 'three')] }) },
      { kind: 1, k: ['requests', 1, 'modelState'], v: { value: 1 } },
    ),
  );
  assert.equal(r.state!.customTitle, 'compacted');
  assert.deepEqual(ids(r.state), ['request_0001', 'request_0003']);
  assert.deepEqual(
    r.removed.map((x) => [x.afterRequestId, x.requests.map((q) => q.requestId)]),
    [['request_0001', ['request_0002']]],
  );
  // a compacted log alone replays to the same state as the log it replaced
  const compacted = replay(
    lines(
      { kind: 0, v: initialState({ customTitle: 'compacted', requests: [request(1, 'one'), request(3, 'three')] }) },
      { kind: 1, k: ['requests', 1, 'modelState'], v: { value: 1 } },
    ),
  );
  assert.deepEqual(compacted.state, r.state);
});

test('a torn last line (a write in progress) is left for later, not reported', () => {
  const whole = lines({ kind: 0, v: initialState() }, { kind: 2, k: ['requests'], v: [request(1, 'one')] });
  const torn = whole + JSON.stringify({ kind: 1, k: ['customTitle'], v: 'half' }).slice(0, 20);
  const r = replay(torn);
  assert.deepEqual(ids(r.state), ['request_0001']);
  assert.equal(r.state!.customTitle, undefined);
  assert.deepEqual(r.skipped, []);
  assert.equal(r.tornBytes, 20);
  // a log whose only line is still being written has no state yet
  const first = replay(JSON.stringify({ kind: 0, v: initialState() }).slice(0, 30));
  assert.equal(first.state, undefined);
  assert.equal(first.tornBytes, 30);
});

test('lines that cannot apply are reported and skipped; the rest replays', () => {
  const r = replay(
    [
      JSON.stringify({ kind: 1, k: ['customTitle'], v: 'before the state' }),
      JSON.stringify({ kind: 0, v: initialState({ requests: [request(1, 'one')] }) }),
      '{not json',
      JSON.stringify({ kind: 7, k: ['x'] }),
      JSON.stringify({ kind: 1, k: ['requests', 5, 'modelState'], v: 1 }),
      JSON.stringify({ kind: 2, k: ['inputState', 'mode'], v: ['x'] }),
      JSON.stringify({ kind: 2, k: ['requests'], v: 'not a list' }),
      JSON.stringify({ kind: 2, k: ['requests'], v: [request(2, 'two')], i: -1 }),
      JSON.stringify({ kind: 1, v: 'no path' }),
      JSON.stringify({ kind: 2, k: ['requests'], v: [request(2, 'two')] }),
      '',
    ].join('\n'),
  );
  assert.deepEqual(ids(r.state), ['request_0001', 'request_0002']);
  assert.deepEqual(
    r.skipped.map((s) => s.line),
    [1, 3, 4, 5, 6, 7, 8, 9],
  );
  assert.match(r.skipped.find((s) => s.line === 4)!.reason, /unknown mutation kind 7/);
});

test('an old whole-JSON session file (before VS Code 1.109) is read as the state', () => {
  const r = replayChatFile('/x/chatSessions/s.json', Buffer.from(JSON.stringify(initialState({ requests: [request(1, 'one')] }))));
  assert.deepEqual(ids(r.state), ['request_0001']);
  const bad = replayChatFile('/x/chatSessions/s.json', Buffer.from('{"version": 3, "requ'));
  assert.equal(bad.state, undefined);
  assert.match(bad.skipped[0]!.reason, /invalid JSON/);
});
