import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveHome } from '../../src/core/home';

test('home: --home wins over the environment, which wins over ~/.agent-rewind', () => {
  assert.equal(resolveHome('rel/dir', { AGENT_REWIND_HOME: '/env' }), resolve('rel/dir'));
  assert.equal(resolveHome(undefined, { AGENT_REWIND_HOME: '/env' }), '/env');
  assert.equal(resolveHome(undefined, {}), join(homedir(), '.agent-rewind'));
});
