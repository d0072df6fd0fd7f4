/// <reference types="mocha" />
// Runs inside real VS Code's extension host (see test/host/runner): the API agent extensions get from
// activate(), on real files of the open workspace, and the commands that take { sessionRef, entryId } arguments.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AgentRewindApi, AgentRewindSession } from '../../../src/extension/main';

const EXTENSION_ID = 'agent-rewind.agent-rewind';

function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the host tests run with a workspace folder open');
  return folder.uri.fsPath;
}

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() });
const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }], timestamp: Date.now(), provider: 'test', model: 'test' });

/** Resolves when a tab whose label matches is open (panels open asynchronously after a command returns). */
function tabOpened(label: RegExp, timeoutMs = 20_000): Promise<vscode.Tab> {
  const find = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => label.test(t.label));
  return new Promise((resolve, reject) => {
    const now = find();
    if (now) return resolve(now);
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`no tab matching ${label} opened within ${timeoutMs} ms`));
    }, timeoutMs);
    const sub = vscode.window.tabGroups.onDidChangeTabs(() => {
      const t = find();
      if (t) {
        clearTimeout(timer);
        sub.dispose();
        resolve(t);
      }
    });
  });
}

describe('extension host: exported API', () => {
  let api: AgentRewindApi;
  let session: AgentRewindSession;
  let root: string;
  let u1: string;
  let u2: string;

  before(async () => {
    const ext = vscode.extensions.getExtension<AgentRewindApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    api = await ext.activate();
    root = workspaceRoot();
    writeFileSync(join(root, 'app.txt'), 'one\ntwo\n');
    rmSync(join(root, 'added.txt'), { force: true });
  });

  it('has apiVersion 1 and creates a session file under AGENT_REWIND_HOME', async () => {
    assert.equal(api.apiVersion, 1);
    session = await api.createSession({ title: 'API session' });
    assert.ok(existsSync(session.sessionRef), 'the session file is written at once');
    const home = process.env.AGENT_REWIND_HOME;
    if (home) assert.ok(session.sessionRef.startsWith(home), `${session.sessionRef} is under ${home}`);
    const listed = await api.listSessions();
    assert.ok(
      listed.some((s) => s.sessionRef === session.sessionRef || (s as { file?: string }).file === session.sessionRef),
      'listSessions includes it',
    );
  });

  it('a user message takes a file snapshot; an assistant message ends the turn', async () => {
    const r1 = await session.appendMessage(user('change app.txt and add a file'));
    u1 = r1.entryId;
    assert.ok(r1.snapshot, `user message took a snapshot${r1.snapshotError ? ` (error: ${r1.snapshotError})` : ''}`);
    assert.ok(r1.snapshot.files >= 1, 'the snapshot holds the workspace files');
    writeFileSync(join(root, 'app.txt'), 'one\nTWO\nthree\n');
    writeFileSync(join(root, 'added.txt'), 'new\n');
    await session.appendMessage(assistant('done'));
    u2 = (await session.appendMessage(user('second question'))).entryId;
    await session.appendMessage(assistant('second answer'));
    const text = readFileSync(session.sessionRef, 'utf8');
    for (const id of [u1, u2]) assert.ok(text.includes(`"id":"${id}"`), `${id} is in the session file`);
  });

  it('rewindFiles dry run lists what changed since the message and touches nothing', async () => {
    const r = await session.rewindFiles(u1, { dryRun: true });
    assert.equal(r.canRewind, true, r.error);
    assert.deepEqual([...r.filesChanged].sort(), ['added.txt', 'app.txt']);
    // The agent wrote both files before its turn ended (the assistant message): they are not the user's edits.
    assert.deepEqual(r.userModified, [], 'files written before the turn-end snapshot are not flagged as changed by hand');
    const app = r.files.find((f) => f.path === 'app.txt');
    assert.deepEqual({ ins: app?.insertions, del: app?.deletions }, { ins: 2, del: 1 });
    assert.equal(readFileSync(join(root, 'app.txt'), 'utf8'), 'one\nTWO\nthree\n');
    assert.ok(existsSync(join(root, 'added.txt')));
  });

  it('previewRewind describes conversation, state and files without writing', async () => {
    const before = readFileSync(session.sessionRef, 'utf8');
    const p = await session.previewRewind(u1);
    assert.equal(p.anchorEntryId, u1);
    assert.ok(p.conversation.ok, 'conversation part is available');
    assert.ok(p.files.ok, 'files part is available');
    if (p.files.ok) assert.deepEqual([...p.files.filesChanged].sort(), ['added.txt', 'app.txt']);
    assert.equal(readFileSync(session.sessionRef, 'utf8'), before, 'the session file is unchanged');
  });

  it('rewindToHere restores files and makes a new active branch; undoLastRewind brings the files back', async () => {
    const branchesBefore = await session.branches();
    const outcome = await session.rewindToHere(u1, 'all');
    assert.equal(readFileSync(join(root, 'app.txt'), 'utf8'), 'one\ntwo\n');
    assert.equal(existsSync(join(root, 'added.txt')), false);
    assert.ok(outcome.branch, 'a branch was made');
    assert.equal(outcome.branch.headMessageId, u1);
    const branches = await session.branches();
    assert.equal(branches.length, branchesBefore.length + 1);
    assert.equal(branches.find((b) => b.isActive)?.name, outcome.branch.name);
    assert.equal(outcome.undoAvailable, true);
    await session.undoLastRewind();
    assert.equal(readFileSync(join(root, 'app.txt'), 'utf8'), 'one\nTWO\nthree\n');
    assert.equal(readFileSync(join(root, 'added.txt'), 'utf8'), 'new\n');
  });

  it('files written just before a turn ends are in its snapshot every time, though VS Code reports them late and out of order', async () => {
    // VS Code's watcher hands the extension created paths before changed ones in one batch: a change made before the
    // snapshot's sync cookie can be reported after the cookie. Rounds of one changed and one new file each.
    const s = await api.createSession({ title: 'watcher order' });
    for (let round = 1; round <= 6; round++) {
      const anchor = (await s.appendMessage(user(`round ${round}`))).entryId;
      writeFileSync(join(root, 'app.txt'), `round ${round}\n`);
      writeFileSync(join(root, `round-${round}.txt`), 'new\n');
      await s.appendMessage(assistant(`done ${round}`));
      const r = await s.rewindFiles(anchor, { dryRun: true });
      assert.equal(r.canRewind, true, r.error);
      assert.deepEqual(r.userModified, [], `round ${round}: nothing written before the turn's end is taken for a hand edit`);
      assert.deepEqual([...r.filesChanged].sort(), ['app.txt', `round-${round}.txt`], `round ${round}`);
    }
    for (let round = 1; round <= 6; round++) rmSync(join(root, `round-${round}.txt`), { force: true });
  });

  it('switchBranch moves back to the original branch', async () => {
    const branches = await session.branches();
    const other = branches.find((b) => !b.isActive);
    assert.ok(other, 'there is another branch');
    const info = await session.switchBranch(other.name);
    assert.equal(info.name, other.name);
    assert.equal((await session.branches()).find((b) => b.isActive)?.name, other.name);
  });

  it('checkpoint and restore by name', async () => {
    const cp = await session.checkpoint('before-refactor');
    assert.equal(cp.name, 'before-refactor');
    const restored = await session.restore('before-refactor');
    assert.ok(restored.name, 'restore reports the branch it made or moved to');
  });

  it('state: updateState is visible in state()', async () => {
    await session.updateState({ 'app:theme': 'dark' });
    const s = await session.state();
    assert.equal(JSON.stringify(s).includes('dark'), true, `state holds the value: ${JSON.stringify(s)}`);
  });

  it('a bad message id gives a clear error and changes nothing', async () => {
    const before = readFileSync(session.sessionRef, 'utf8');
    await assert.rejects(session.rewindToHere('ffffffff', 'all'), /ffffffff|not found|no (such )?message|unknown/i);
    assert.equal(readFileSync(session.sessionRef, 'utf8'), before);
  });

  it('agentRewind.rewindToHere with { sessionRef, entryId } opens the Rewind preview', async () => {
    await vscode.commands.executeCommand('agentRewind.rewindToHere', { sessionRef: session.sessionRef, entryId: u2 });
    const tab = await tabOpened(/^Rewind preview/);
    assert.ok(tab.input instanceof vscode.TabInputWebview && /agentRewind\.rewindPreview/.test(tab.input.viewType), 'a Rewind preview webview');
  });

  it('agentRewind.openTranscript with a session file opens "Transcript: <title>"', async () => {
    await vscode.commands.executeCommand('agentRewind.openTranscript', { sessionRef: session.sessionRef });
    const tab = await tabOpened(/^Transcript: API session/);
    assert.ok(tab.input instanceof vscode.TabInputWebview && /agentRewind\.transcript/.test(tab.input.viewType), 'a transcript webview');
  });

  it('agentRewind.refresh runs', async () => {
    await vscode.commands.executeCommand('agentRewind.refresh');
  });
});
