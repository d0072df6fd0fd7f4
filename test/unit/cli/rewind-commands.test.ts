import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { BlobStore } from '../../../src/core/session';
import { SessionState } from '../../../src/core/state/session-state';
import { assistant, newSession, user, withTempHome } from '../branches/session-fixture';
import { bundledCli } from '../files/helpers';

const ROOT = resolve(__dirname, '../../..');

function cli(home: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [bundledCli(), ...args, '--home', home], { encoding: 'utf8', cwd: ROOT });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

test('CLI: branches, rewind, switch, checkpoint, restore, state — across separate processes', () =>
  withTempHome(async (home) => {
    const session = newSession(home);
    session.appendMessage(user('q1'), { id: 'q1' });
    session.appendMessage(assistant('a1'), { id: 'a1' });
    const state = new SessionState(session, { blobs: new BlobStore(join(home, 'blobs')), warn: () => {} });
    await state.updateState({ 'app:x': 1, 'user:y': 'two' });
    session.appendMessage(user('q2'), { id: 'q2' });
    await state.updateState({ 'app:x': 3 });
    await state.saveArtifact('notes.txt', new TextEncoder().encode('hello'), 'text/plain');
    session.appendMessage(assistant('a2'), { id: 'a2' });
    await session.close();
    const file = session.sessionRef!;

    const listed = cli(home, 'branches', session.sessionId, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      listed
        .json()
        .map((b: { name: string; headMessageId: string; isActive: boolean; messageCount: number }) => [b.name, b.headMessageId, b.isActive, b.messageCount]),
      [['main', 'a2', true, 4]],
    );

    const cp = cli(home, 'checkpoint', file, 'before-retry', '--json');
    assert.equal(cp.code, 0, cp.stderr);
    assert.equal(cp.json().messageId, 'a2');

    const rewound = cli(home, 'rewind', file, 'q1', '--json');
    assert.equal(rewound.code, 0, rewound.stderr);
    const info = rewound.json();
    assert.deepEqual([info.name, info.headMessageId, info.isActive, info.messageCount], ['main-v2', 'q1', true, 1]);
    assert.deepEqual(Object.keys(info).sort(), ['createdAt', 'headMessageId', 'id', 'isActive', 'messageCount', 'name']);

    const missing = cli(home, 'rewind', file, 'nope');
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /Message "nope" not found/);

    const switched = cli(home, 'switch', file, 'main', '--json');
    assert.deepEqual([switched.json().name, switched.json().headMessageId], ['main', 'a2']);
    const restored = cli(home, 'restore', file, 'before-retry', '--json');
    assert.deepEqual([restored.json().name, restored.json().headMessageId], ['main-v3', 'a2']);

    const human = cli(home, 'branches', file);
    assert.equal(human.stdout, ['  main  head=a2  messages=4', '  main-v2  head=q1  messages=1', '* main-v3  head=a2  messages=4', ''].join('\n'));

    const now = cli(home, 'state', file, '--json');
    assert.deepEqual(now.json().state, { 'app:x': 3, 'user:y': 'two' });
    assert.deepEqual(
      now.json().artifacts.map((a: { name: string; version: number }) => [a.name, a.version]),
      [['notes.txt', 1]],
    );
    const then = cli(home, 'state', file, '--at', 'q2', '--json');
    assert.deepEqual([then.json().state, then.json().artifacts, then.json().invocationId], [{ 'app:x': 1, 'user:y': 'two' }, [], 'q2']);
    assert.match(cli(home, 'state', file, '--at', 'q2').stdout, /\[app\] app:x = 1/);
    assert.deepEqual(cli(home, 'state', file, '--at', 'a1', '--json').json().state, {});

    assert.equal(cli(home, 'switch', file, 'nope').code, 1);
    assert.equal(cli(home, 'switch', file).code, 2, 'missing argument is a usage error');
    const unknown = cli(home, 'branches', 'no-such-session');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no session with id "no-such-session"/);
  }));
