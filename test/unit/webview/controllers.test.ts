// The panel hosts' logic, driven with the fake services: what reaches the services, what goes back to the
// webview, and that malformed messages change nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PreviewToWebview, TranscriptToWebview } from '../../../src/shared/protocol';
import { RewindPreviewController, rewindSummary, UNDO_COMMAND } from '../../../src/extension/webviews/preview-controller';
import { TranscriptController } from '../../../src/extension/webviews/transcript-controller';
import { FakeServices, FakeUi, generateTranscript, samplePreview } from './fakes';

const ref = { sessionRef: '/work/s.jsonl' };
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function transcriptHarness() {
  const services = new FakeServices();
  const ui = new FakeUi();
  const posted: TranscriptToWebview[] = [];
  const titles: string[] = [];
  const controller = new TranscriptController(ref, services, (m) => posted.push(m), ui, { refreshDelayMs: 5, onModel: (m) => titles.push(m.title) });
  return { services, ui, posted, titles, controller };
}

describe('TranscriptController', () => {
  it('sends nothing before ready, then the model with the session file', async () => {
    const h = transcriptHarness();
    await h.controller.refresh();
    assert.equal(h.posted.length, 0);
    await h.controller.handle({ type: 'ready' });
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['model'],
    );
    const m = h.posted[0];
    assert.ok(m?.type === 'model');
    assert.equal(m.model.total, 30);
    assert.equal(m.sessionRef, ref.sessionRef);
    assert.deepEqual(h.titles, ['Refactor the parser']);
  });

  it('loads once when the panel starts loading before the webview is ready', async () => {
    const h = transcriptHarness();
    const loading = h.controller.refresh();
    await Promise.all([loading, h.controller.handle({ type: 'ready' })]);
    assert.equal(h.services.called('loadTranscript').length, 1);
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['model'],
    );
  });

  it('sends the model again when a reloaded webview says ready again, without reloading', async () => {
    const h = transcriptHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'ready' });
    assert.equal(h.services.called('loadTranscript').length, 1);
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['model', 'model'],
    );
  });

  it('reloads when the session changes and bumps the version', async () => {
    const h = transcriptHarness();
    await h.controller.handle({ type: 'ready' });
    h.services.transcript = generateTranscript(31, 'other');
    h.services.fireChange();
    h.services.fireChange(); // a burst of appends loads once
    await tick(30);
    const models = h.posted.filter((m) => m.type === 'model');
    assert.equal(models.length, 2);
    assert.ok(models[1]?.type === 'model' && models[1].version > (models[0] as { version: number }).version);
    assert.equal((models[1] as { model: { branch: string } }).model.branch, 'other');
    assert.equal(h.services.called('loadTranscript').length, 2);
  });

  it('answers row pages with the current version', async () => {
    const h = transcriptHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'rows', requestId: 7, version: 0, start: 25, count: 10 });
    const r = h.posted.at(-1);
    assert.ok(r?.type === 'response' && r.ok);
    const result = r.result as { version: number; start: number; items: { entryId: string }[] };
    assert.equal(r.requestId, 7);
    assert.equal(result.start, 25);
    assert.deepEqual(
      result.items.map((i) => i.entryId),
      ['e0000019', 'e000001a', 'e000001b', 'e000001c', 'e000001d'],
    );
  });

  it('reports a transcript that cannot be read in words, and recovers on change', async () => {
    const h = transcriptHarness();
    h.services.failLoad = new Error('ENOENT: no such file');
    await h.controller.handle({ type: 'ready' });
    const e = h.posted[0];
    assert.ok(e?.type === 'loadError');
    assert.match(e.message, /could not be read: ENOENT/);
    h.services.failLoad = undefined;
    h.services.fireChange();
    await tick(30);
    assert.equal(h.posted.at(-1)?.type, 'model');
  });

  it('relays actions for entries on the branch, and refuses others with a notice', async () => {
    const h = transcriptHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'rewindToHere', entryId: 'e0000006' });
    await h.controller.handle({ type: 'fork', entryId: 'e0000007' });
    await h.controller.handle({ type: 'label', entryId: 'e0000008' });
    assert.deepEqual(h.services.called('previewRewind')[0]?.args, [ref, 'e0000006']);
    assert.deepEqual(h.services.called('fork')[0]?.args, [ref, 'e0000007']);
    assert.deepEqual(h.services.called('label')[0]?.args, [ref, 'e0000008']);

    await h.controller.handle({ type: 'rewindToHere', entryId: 'e0000007' }); // an assistant message
    await h.controller.handle({ type: 'rewindToHere', entryId: 'from-another-session' });
    assert.equal(h.services.called('previewRewind').length, 1);
    const notices = h.posted.filter((m) => m.type === 'notice').map((m) => (m as { message: string }).message);
    assert.deepEqual(notices, ['Only a message you sent can be rewound to.', 'That message is no longer on this branch. The transcript was refreshed.']);
  });

  it('switches only to branches that leave this transcript, then reloads', async () => {
    const h = transcriptHarness();
    const items = h.services.transcript.items;
    items[0]!.otherBranches = [{ name: 'alt', headEntryId: 'x' }];
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'switchBranch', branch: 'alt' });
    await h.controller.handle({ type: 'switchBranch', branch: 'nope' });
    assert.deepEqual(
      h.services.called('switchBranch').map((c) => c.args[1]),
      ['alt'],
    );
    assert.equal(h.services.called('loadTranscript').length, 2);
  });

  it('copies ids through the editor clipboard and answers the request', async () => {
    const h = transcriptHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'copyId', requestId: 3, entryId: 'e0000001' });
    assert.deepEqual(h.ui.called('copyToClipboard')[0]?.args, ['e0000001']);
    const r = h.posted.at(-1);
    assert.ok(r?.type === 'response' && r.ok && r.requestId === 3);
  });

  it('ignores malformed messages and stops listening once disposed', async () => {
    const h = transcriptHarness();
    await h.controller.handle({ type: 'rewindToHere', entryId: 42 });
    await h.controller.handle({ type: 'eval', code: 'x' });
    await h.controller.handle(undefined);
    assert.equal(h.posted.length, 0);
    assert.equal(h.services.calls.filter((c) => c.method !== 'onDidChangeSession').length, 0);
    assert.equal(h.services.listenerCount, 1);
    h.controller.dispose();
    assert.equal(h.services.listenerCount, 0);
  });
});

function previewHarness() {
  const services = new FakeServices();
  const ui = new FakeUi();
  const posted: PreviewToWebview[] = [];
  let closed = 0;
  const controller = new RewindPreviewController(
    ref,
    'e0000006',
    services,
    (m) => posted.push(m),
    ui,
    () => closed++,
  );
  return { services, ui, posted, controller, closed: () => closed };
}

describe('RewindPreviewController', () => {
  it('computes the dry run on ready and sends it', async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['loading', 'model'],
    );
    assert.deepEqual(h.services.called('preview')[0]?.args, [ref, 'e0000006']);
    assert.equal(h.services.called('apply').length, 0);
  });

  it('Confirm applies under progress, answers, closes, and offers Undo that runs the undo command', async () => {
    const h = previewHarness();
    h.ui.infoChoice = 'Undo';
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'confirm', requestId: 9, mode: 'all', overwriteUserModified: true });
    assert.deepEqual(h.services.called('apply')[0]?.args, [ref, 'e0000006', 'all', { overwriteUserModified: true }]);
    assert.deepEqual(h.ui.called('withProgress')[0]?.args, ['Rewinding…']);
    const r = h.posted.at(-1);
    assert.ok(r?.type === 'response' && r.ok && r.requestId === 9);
    assert.equal(h.closed(), 1);
    const info = h.ui.called('showInfo')[0]?.args;
    assert.match(String(info?.[0]), /^Rewound the conversation \(now on branch "main-rewind-1"\) and 2 files to "Please change step 6/);
    assert.equal(info?.[1], 'Undo');
    assert.deepEqual(h.ui.called('executeCommand')[0]?.args, [UNDO_COMMAND, { sessionRef: ref.sessionRef }]);
  });

  it('after Confirm, closes the diffs it opened and says exactly what Undo will do', async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'confirm', requestId: 2, mode: 'all', overwriteUserModified: false });
    assert.deepEqual(h.services.called('closeFileDiffs')[0]?.args, [ref, 'e0000006']);
    const info = h.ui.called('showInfo')[0]?.args;
    assert.match(
      String(info?.[0]),
      /"\. Undo will put the files back as they were before the rewind and return to branch "main" \(branch "main-rewind-1" stays\)\.$/,
    );
    assert.equal(info?.[1], 'Undo');
  });

  it('offers Undo for a conversation-only rewind when the engine can undo it', async () => {
    const h = previewHarness();
    h.services.outcome = { mode: 'conversation', branch: { name: 'main-rewind-1', headMessageId: 'e0000006' }, filesChanged: [], undoAvailable: false };
    h.services.undoText = 'Undo will return to branch "main" (branch "main-rewind-1" stays).';
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'confirm', requestId: 3, mode: 'conversation', overwriteUserModified: false });
    const info = h.ui.called('showInfo')[0]?.args;
    assert.match(String(info?.[0]), /Undo will return to branch "main"/);
    assert.equal(info?.[1], 'Undo');
  });

  it('offers no Undo when there is nothing to undo', async () => {
    const h = previewHarness();
    h.services.outcome = { mode: 'conversation', branch: { name: 'b', headMessageId: 'e0000006' }, filesChanged: [], undoAvailable: false };
    h.services.undoText = undefined;
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'confirm', requestId: 4, mode: 'conversation', overwriteUserModified: false });
    assert.equal(h.ui.called('showInfo')[0]?.args.length, 1);
  });

  it('a failed apply is answered with its message and the preview stays open', async () => {
    const h = previewHarness();
    h.services.failApply = new Error('src/a.ts changed on disk after the preview; look again before rewinding.');
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'confirm', requestId: 1, mode: 'files', overwriteUserModified: false });
    const r = h.posted.at(-1);
    assert.ok(r?.type === 'response' && !r.ok);
    assert.match(r.error, /changed on disk/);
    assert.equal(h.closed(), 0);
    assert.equal(h.ui.called('showInfo').length, 0);
  });

  it('Cancel closes without applying; nothing is applied without Confirm', async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'cancel' });
    assert.equal(h.closed(), 1);
    assert.equal(h.services.called('apply').length, 0);
  });

  it("runs VS Code chat's own command only when the preview offered it, and shows its failure", async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'editorChat', action: 'restoreCheckpoint' });
    assert.equal(h.services.called('editorChat').length, 0, 'not offered: nothing run');

    const offered = previewHarness();
    offered.services.previewModel = samplePreview({ editorChat: { agent: 'VS Code chat', sessionId: 's1', requestId: 'e0000006' } });
    await offered.controller.handle({ type: 'ready' });
    await offered.controller.handle({ type: 'editorChat', action: 'restoreCheckpoint' });
    await offered.controller.handle({ type: 'editorChat', action: 'open' });
    assert.deepEqual(
      offered.services.called('editorChat').map((c) => c.args),
      [
        [ref, 'e0000006', 'restoreCheckpoint'],
        [ref, 'e0000006', 'open'],
      ],
    );
    offered.services.failEditorChat = new Error('no such command');
    await offered.controller.handle({ type: 'editorChat', action: 'restoreCheckpoint' });
    assert.deepEqual(offered.ui.calls.at(-1), { method: 'showError', args: ['Could not run Restore Checkpoint in VS Code chat: no such command'] });
  });

  it('opens diffs only for files the preview lists', async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'openFileDiff', path: 'src/a.ts' });
    await h.controller.handle({ type: 'openFileDiff', path: '../../etc/passwd' });
    assert.deepEqual(
      h.services.called('openFileDiff').map((c) => c.args[2]),
      ['src/a.ts'],
    );
  });

  it('a selection is previewed and applied as `only`; a path the preview does not list is refused, nothing applied', async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'previewSelection', requestId: 4, only: ['src/new.ts'] });
    assert.deepEqual(h.services.called('previewSelection')[0]?.args, [ref, 'e0000006', ['src/new.ts']]);
    const answer = h.posted.at(-1);
    assert.ok(answer?.type === 'response' && answer.ok && answer.requestId === 4);
    assert.deepEqual(answer.result, { filesChanged: ['src/new.ts'], insertions: 4, deletions: 0 });
    await h.controller.handle({ type: 'previewSelection', requestId: 5, only: ['../outside'] });
    await h.controller.handle({ type: 'confirm', requestId: 6, mode: 'files', overwriteUserModified: false, only: ['src/new.ts', '/etc/passwd'] });
    const refused = h.posted.slice(-2);
    assert.deepEqual(
      refused.map((m) => m.type === 'response' && !m.ok && m.error),
      ['../outside is not one of the files this preview lists.', '/etc/passwd is not one of the files this preview lists.'],
    );
    assert.equal(h.services.called('previewSelection').length, 1);
    assert.equal(h.services.called('apply').length, 0);
    await h.controller.handle({ type: 'confirm', requestId: 7, mode: 'files', overwriteUserModified: false, only: ['src/new.ts'] });
    assert.deepEqual(h.services.called('apply')[0]?.args, [ref, 'e0000006', 'files', { overwriteUserModified: false, only: ['src/new.ts'] }]);
  });

  it("a file's hunks are asked of the services only for a listed file; hunks are previewed and applied with their hash", async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'fileHunks', requestId: 1, path: 'src/a.ts' });
    await h.controller.handle({ type: 'fileHunks', requestId: 2, path: '../../etc/passwd' });
    assert.deepEqual(
      h.services.called('fileHunks').map((c) => c.args[2]),
      ['src/a.ts'],
    );
    const [listed, refused] = h.posted.slice(-2);
    assert.ok(listed?.type === 'response' && listed.ok && listed.requestId === 1);
    assert.ok(refused?.type === 'response' && !refused.ok && refused.error === '../../etc/passwd is not one of the files this preview lists.');
    const hunks = [{ path: 'src/a.ts', hunks: [2], hash: 'cd'.repeat(32) }];
    await h.controller.handle({ type: 'previewSelection', requestId: 3, only: [], hunks });
    assert.deepEqual(h.services.called('previewSelection')[0]?.args, [ref, 'e0000006', [], hunks]);
    await h.controller.handle({
      type: 'confirm',
      requestId: 4,
      mode: 'files',
      overwriteUserModified: false,
      only: [],
      hunks: [{ ...hunks[0]!, path: 'x/../../y' }],
    });
    assert.equal(h.services.called('apply').length, 0, 'a hunk path the preview does not list is refused');
    await h.controller.handle({
      type: 'confirm',
      requestId: 5,
      mode: 'files',
      overwriteUserModified: false,
      only: [],
      hunks: [{ ...hunks[0]!, hash: 'not a hash' }],
    });
    assert.equal(h.services.called('apply').length, 0, 'a malformed hash is no message');
    await h.controller.handle({ type: 'confirm', requestId: 6, mode: 'files', overwriteUserModified: false, only: [], hunks });
    assert.deepEqual(h.services.called('apply')[0]?.args, [ref, 'e0000006', 'files', { overwriteUserModified: false, only: [], hunks }]);
  });

  it('ignores malformed confirms (no apply)', async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'confirm', requestId: 1, mode: 'rm -rf', overwriteUserModified: false });
    await h.controller.handle({ type: 'confirm', mode: 'all', overwriteUserModified: false });
    assert.equal(h.services.called('apply').length, 0);
  });

  it('turns a preview that throws into errors shown in every part', async () => {
    const h = previewHarness();
    h.services.preview = async () => {
      throw new Error('The session file is locked by another program.');
    };
    await h.controller.handle({ type: 'ready' });
    const m = h.posted.at(-1);
    assert.ok(m?.type === 'model');
    assert.deepEqual([m.model.conversation.ok, m.model.state.ok, m.model.files.ok], [false, false, false]);
  });

  it('computes the dry run again on refresh', async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.handle({ type: 'refresh' });
    assert.equal(h.services.called('preview').length, 2);
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['loading', 'model', 'loading', 'model'],
    );
  });

  it('retargets to another message', async () => {
    const h = previewHarness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.retarget({ sessionRef: '/other.jsonl' }, 'u2');
    assert.deepEqual(h.services.called('preview')[1]?.args, [{ sessionRef: '/other.jsonl' }, 'u2']);
    assert.deepEqual(h.controller.target, { ref: { sessionRef: '/other.jsonl' }, anchorEntryId: 'u2' });
  });
});

describe('rewindSummary', () => {
  it('says what was rewound', () => {
    assert.equal(rewindSummary({ mode: 'files', filesChanged: ['a'], undoAvailable: true }, 'fix the bug'), 'Rewound 1 file to "fix the bug".');
    assert.equal(
      rewindSummary({ mode: 'conversation', branch: { name: 'b', headMessageId: 'u' }, filesChanged: [], undoAvailable: false }, 'x'.repeat(100)),
      `Rewound the conversation (now on branch "b") to "${'x'.repeat(59)}…".`,
    );
  });
});
