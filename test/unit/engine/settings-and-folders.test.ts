import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sessionFoldersFor, sourceOfPath } from '../../../src/core/sources/pi/session-folders';
import { DEFAULT_EXCLUDES, parseSettings } from '../../../src/core/settings/settings';

const MB = 1024 * 1024;

describe('settings', () => {
  it('uses the defaults when nothing is set, $AGENT_REWIND_HOME for the home', () => {
    const s = parseSettings(() => undefined, { AGENT_REWIND_HOME: '/tmp/ar-home' });
    assert.equal(s.home, '/tmp/ar-home');
    assert.equal(s.fileCheckpointing.enabled, true);
    assert.equal(s.fileCheckpointing.storeDir, undefined);
    assert.deepEqual(s.fileCheckpointing.exclude, DEFAULT_EXCLUDES);
    assert.equal(s.fileCheckpointing.maxFileSizeBytes, 10 * MB);
    assert.equal(s.fileCheckpointing.storeSizeCapBytes, 2048 * MB);
    assert.deepEqual(s.switches, {});
    assert.equal(parseSettings(() => undefined, {}).home, join(homedir(), '.agent-rewind'));
  });

  it('reads every setting and resolves paths against the home', () => {
    const values: Record<string, unknown> = {
      home: '~/ar',
      'fileCheckpointing.enabled': false,
      'fileCheckpointing.storeLocation': 'store',
      'fileCheckpointing.include': ['src/**'],
      'fileCheckpointing.exclude': ['**/*.log'],
      'fileCheckpointing.maxFileSizeMB': 1.5,
      'fileCheckpointing.storeSizeCapMB': 0,
      sessionFolders: ['/x/sessions', 'rel'],
      includePiSessions: false,
    };
    const s = parseSettings((k) => values[k], { AGENT_REWIND_HOME: '/ignored' }, ['includePiSessions', 'notSet']);
    assert.equal(s.home, join(homedir(), 'ar'), 'the setting wins over the environment');
    assert.equal(s.fileCheckpointing.enabled, false);
    assert.equal(s.fileCheckpointing.storeDir, join(homedir(), 'ar', 'store'));
    assert.deepEqual(s.fileCheckpointing.include, ['src/**']);
    assert.deepEqual(s.fileCheckpointing.exclude, ['**/*.log']);
    assert.equal(s.fileCheckpointing.maxFileSizeBytes, Math.round(1.5 * MB));
    assert.equal(s.fileCheckpointing.storeSizeCapBytes, 0);
    assert.deepEqual(s.sessionFolders, ['/x/sessions', join(homedir(), 'ar', 'rel')]);
    assert.deepEqual(s.switches, { includePiSessions: false }, 'the switches asked for, those set');
  });

  it('ignores values of the wrong type instead of failing', () => {
    const values: Record<string, unknown> = {
      home: 42,
      'fileCheckpointing.enabled': 'yes',
      'fileCheckpointing.exclude': 'not a list',
      'fileCheckpointing.maxFileSizeMB': -3,
      sessionFolders: [1, '', '/ok'],
    };
    const s = parseSettings((k) => values[k], { AGENT_REWIND_HOME: '/h' });
    assert.equal(s.home, '/h');
    assert.equal(s.fileCheckpointing.enabled, true);
    assert.deepEqual(s.fileCheckpointing.exclude, DEFAULT_EXCLUDES);
    assert.equal(s.fileCheckpointing.maxFileSizeBytes, 10 * MB);
    assert.deepEqual(s.sessionFolders, ['/ok']);
  });
});

describe('session folders', () => {
  const settings = parseSettings((k) => (k === 'sessionFolders' ? ['/extra', '/u/.pi/agent/sessions/--x--'] : undefined), { AGENT_REWIND_HOME: '/h' });

  it("lists ours, pi's and oh-my-pi's folder for each workspace folder, then the extra ones", () => {
    const folders = sessionFoldersFor(settings, ['/w/app'], '/u');
    assert.deepEqual(folders, [
      { path: '/h/sessions/--w-app--', source: 'agent-rewind' },
      { path: '/u/.pi/agent/sessions/--w-app--', source: 'pi' },
      { path: '/u/.omp/agent/sessions/--w-app--', source: 'omp' },
      { path: '/extra', source: 'agent-rewind' },
      { path: '/u/.pi/agent/sessions/--x--', source: 'pi' },
    ]);
  });

  it('leaves pi and oh-my-pi out when asked, and lists a folder once', () => {
    const noPi = { ...settings, switches: { includePiSessions: false }, sessionFolders: ['/h/sessions/--w-app--'] };
    assert.deepEqual(sessionFoldersFor(noPi, ['/w/app', '/w/app/'], '/u'), [{ path: '/h/sessions/--w-app--', source: 'agent-rewind' }]);
  });

  it('tells the source of a session file from where it lives', () => {
    assert.equal(sourceOfPath('/u/.omp/agent/sessions/--a--/s.jsonl', '/u'), 'omp');
    assert.equal(sourceOfPath('/u/.pi/agent/sessions/--a--/s.jsonl', '/u'), 'pi');
    assert.equal(sourceOfPath('/u/.pi-other/s.jsonl', '/u'), 'agent-rewind');
  });
});
