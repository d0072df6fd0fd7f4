// Opening a transcript at a message (search hits, checkpoint nodes, openTranscript { sessionRef, entryId }): the
// host controller's `revealEntry`, its place in the ready handshake, and the switch offered for another branch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TranscriptToWebview } from '../../../src/shared/protocol';
import { switchedBranchNotice, TranscriptController } from '../../../src/extension/webviews/transcript-controller';
import { FakeServices, FakeUi, generateTranscript } from './fakes';

const ref = { sessionRef: '/work/s.jsonl' };

function harness() {
  const services = new FakeServices();
  const posted: TranscriptToWebview[] = [];
  const controller = new TranscriptController(ref, services, (m) => posted.push(m), new FakeUi(), { refreshDelayMs: 5 });
  const reveals = () => posted.filter((m): m is Extract<TranscriptToWebview, { type: 'revealEntry' }> => m.type === 'revealEntry');
  const notices = () => posted.filter((m) => m.type === 'notice').map((m) => (m as { message: string }).message);
  return { services, posted, controller, reveals, notices };
}

/** A message only on branch "alt": the transcript of "alt" has it at row 3. */
function withAltBranch(services: FakeServices): void {
  services.locations.set('alt-msg', { found: true, onActiveBranch: false, branch: 'alt', activeBranch: 'main', preview: 'try it the other way' });
  const alt = generateTranscript(3, 'alt');
  alt.items.push({ entryId: 'alt-msg', kind: 'user', markdown: 'try it the other way' });
  alt.model.total = alt.items.length;
  services.branchTranscripts.set('alt', alt);
}

describe('revealEntry', () => {
  it('asked before the webview is ready, it is delivered right after the model, once', async () => {
    const h = harness();
    const loading = h.controller.refresh(); // the panel loads at once
    await h.controller.reveal('e0000011');
    assert.equal(h.posted.length, 0, 'nothing goes out before ready');
    await loading;
    await h.controller.handle({ type: 'ready' });
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['model', 'revealEntry'],
    );
    const model = h.posted[0] as Extract<TranscriptToWebview, { type: 'model' }>;
    assert.deepEqual(h.reveals()[0], { type: 'revealEntry', entryId: 'e0000011', version: model.version, target: { on: 'activeBranch', index: 17 } });
    // A webview that reloads (hidden and shown) gets its model again but is not pulled back to the message.
    await h.controller.handle({ type: 'ready' });
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['model', 'revealEntry', 'model'],
    );
  });

  it('asked while the first load is still on its way, it waits for that load', async () => {
    const h = harness();
    await h.controller.handle({ type: 'ready' });
    h.posted.length = 0;
    h.services.transcript = generateTranscript(40);
    const loading = h.controller.refresh();
    const revealing = h.controller.reveal('e0000025');
    await Promise.all([loading, revealing]);
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['model', 'revealEntry'],
    );
    assert.deepEqual(h.reveals()[0]?.target, { on: 'activeBranch', index: 37 });
    assert.equal(h.reveals()[0]?.version, (h.posted[0] as { version: number }).version);
  });

  it('asked twice before ready, only the latest is shown', async () => {
    const h = harness();
    await h.controller.reveal('e0000001');
    await h.controller.reveal('e0000002');
    await h.controller.handle({ type: 'ready' });
    assert.deepEqual(
      h.reveals().map((r) => r.entryId),
      ['e0000002'],
    );
  });

  it('a message on another branch: says which, and showing that branch shows it without switching', async () => {
    const h = harness();
    withAltBranch(h.services);
    await h.controller.handle({ type: 'ready' });
    await h.controller.reveal('alt-msg');
    assert.deepEqual(h.reveals()[0]?.target, { on: 'otherBranch', branch: 'alt', activeBranch: 'main', preview: 'try it the other way' });
    // "alt" leaves the tree nowhere in this transcript, but it is the branch just offered, so showing it is allowed.
    await h.controller.handle({ type: 'showBranch', branch: 'alt' });
    assert.equal(h.services.called('switchBranch').length, 0, 'showing a branch switches nothing');
    const after = h.posted.slice(h.posted.findIndex((m) => m.type === 'revealEntry') + 1);
    assert.deepEqual(
      after.map((m) => m.type),
      ['model', 'revealEntry'],
    );
    assert.deepEqual(
      [(after[0] as { model: { branch: string } }).model.branch, (after[0] as { model: { activeBranch: string } }).model.activeBranch],
      ['alt', 'main'],
    );
    assert.deepEqual((after[1] as { target: unknown }).target, { on: 'activeBranch', index: 3 });
    assert.deepEqual(h.notices(), []);
  });

  it('switching to the branch shown makes it active and says the files were not changed', async () => {
    const h = harness();
    withAltBranch(h.services);
    await h.controller.handle({ type: 'ready' });
    await h.controller.showBranch('alt');
    await h.controller.handle({ type: 'switchBranch', branch: 'alt' });
    assert.deepEqual(
      h.services.called('switchBranch').map((c) => c.args[1]),
      ['alt'],
    );
    const info = h.posted.filter((m) => m.type === 'notice').map((m) => (m as { message: string }).message);
    assert.deepEqual(info, [switchedBranchNotice('alt')]);
    assert.match(info[0]!, /Files were not changed/);
    const last = h.posted.filter((m) => m.type === 'model').at(-1) as { model: { branch: string; activeBranch: string } };
    assert.deepEqual([last.model.branch, last.model.activeBranch], ['alt', 'alt']);
  });

  it('does not switch to that branch once the user moved on to another message', async () => {
    const h = harness();
    withAltBranch(h.services);
    await h.controller.handle({ type: 'ready' });
    await h.controller.reveal('alt-msg');
    await h.controller.reveal('e0000003'); // on the active branch: the offer is withdrawn
    await h.controller.handle({ type: 'switchBranch', branch: 'alt' });
    assert.equal(h.services.called('switchBranch').length, 0);
    assert.deepEqual(h.notices(), ['There is no branch "alt" here any more.']);
  });

  it('a failed switch reports the error and reveals nothing', async () => {
    const h = harness();
    withAltBranch(h.services);
    h.services.switchBranch = async () => {
      throw new Error('the session file is locked');
    };
    await h.controller.handle({ type: 'ready' });
    await h.controller.reveal('alt-msg');
    await h.controller.handle({ type: 'switchBranch', branch: 'alt' });
    assert.deepEqual(h.notices(), ['Could not switch to branch "alt": the session file is locked']);
    assert.equal(h.reveals().length, 1);
  });

  it('a message on no branch is said to be so, with nothing to switch to', async () => {
    const h = harness();
    h.services.locations.set('orphan', { found: true, onActiveBranch: false, activeBranch: 'main', preview: 'lost line' });
    await h.controller.handle({ type: 'ready' });
    await h.controller.reveal('orphan');
    assert.deepEqual(h.reveals()[0]?.target, { on: 'noBranch', preview: 'lost line' });
  });

  it('a message appended after the transcript was loaded: loads again, then shows it', async () => {
    const h = harness();
    await h.controller.handle({ type: 'ready' });
    h.services.transcript = generateTranscript(31); // e000001e is new; no change event yet
    await h.controller.reveal('e000001e');
    assert.equal(h.services.called('loadTranscript').length, 2);
    assert.deepEqual(h.reveals()[0]?.target, { on: 'activeBranch', index: 30 });
  });

  it('an entry on the active branch that is no chat row is reported, without a reload loop', async () => {
    const h = harness();
    h.services.locations.set('record', { found: true, onActiveBranch: true, branch: 'main', activeBranch: 'main', preview: '(custom)' });
    await h.controller.handle({ type: 'ready' });
    await h.controller.reveal('record');
    assert.equal(h.services.called('loadTranscript').length, 2);
    assert.equal(h.reveals().length, 0);
    assert.deepEqual(h.notices(), ['Message record is not shown in the transcript (it is not a chat message).']);
  });

  it('an id that is not in the session, and a lookup that fails, are said in words', async () => {
    const h = harness();
    await h.controller.handle({ type: 'ready' });
    await h.controller.reveal('from-another-session');
    h.services.failLocate = new Error('EACCES: permission denied');
    await h.controller.reveal('whatever');
    assert.deepEqual(h.notices(), [
      'Message from-another-session is not in this session (any more).',
      'Could not find message whatever: EACCES: permission denied',
    ]);
    assert.equal(h.reveals().length, 0);
  });

  it('waits through a load error and reveals once the transcript can be read', async () => {
    const h = harness();
    h.services.failLoad = new Error('ENOENT');
    await h.controller.handle({ type: 'ready' });
    await h.controller.reveal('e0000004');
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['loadError'],
    );
    h.services.failLoad = undefined;
    await h.controller.refresh();
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['loadError', 'model', 'revealEntry'],
    );
  });

  it('a disposed panel posts nothing', async () => {
    const h = harness();
    h.controller.dispose();
    await h.controller.reveal('e0000004');
    await h.controller.handle({ type: 'ready' });
    assert.equal(h.posted.length, 0);
  });
});
