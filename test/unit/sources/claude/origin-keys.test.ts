// A fork is read again on every line Claude Code appends to it; what it needs of its origin (each copied prompt's
// snapshot keys) is read once and reused while the origin and its prompt records are unchanged, and read again when
// either changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClaudeSource } from '../../../../src/core/sources/claude/claude-source';
import { appendPromptRecord, sha256Hex } from '../../../../src/core/sources/claude/prompt-records';
import { Transcript } from './builder';
import { tempDir } from '../../session/helpers';

const ORIGIN = '11111111-aaaa-4333-8444-555555555555';
const FORK = '66666666-aaaa-4333-8444-555555555555';

test("a fork's origin is read again only when it or its prompt records change", async (t) => {
  const dir = tempDir(t, 'ar-cc-origin-keys-');
  const config = join(dir, 'claude');
  const home = join(dir, 'home');
  const o = new Transcript(ORIGIN, '/work/proj');
  const p1 = o.user(null, 'first', { uuid: 'aaaaaaaa-0001', promptId: 'pid-1' });
  o.text(p1, 'msg_1', 'one', { uuid: 'aaaaaaaa-0002', promptId: 'pid-1' });
  const originFile = o.write(config);
  // `claude --resume ORIGIN --fork-session`: the same uuids, every copied line given the fork's prompt id
  const f = new Transcript(FORK, '/work/proj');
  for (const l of o.lines) f.raw({ ...l, sessionId: FORK, promptId: 'pid-fork' });
  const own = f.user('aaaaaaaa-0002', 'second', { uuid: 'ffffffff-0001', promptId: 'pid-fork' });
  f.text(own, 'msg_2', 'two', { uuid: 'ffffffff-0002', promptId: 'pid-fork' });
  const forkRef = f.write(config);
  // the fork's first line is later than the origin's file by more than a copy takes
  utimesSync(originFile, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));

  const source = new ClaudeSource({ configDirs: [config], home });
  const keysOfP1 = async () => {
    await source.forget(forkRef); // as when Claude Code appends to the fork
    return (await source.open(forkRef)).originCheckpointsOf(p1);
  };
  try {
    assert.deepEqual(await keysOfP1(), [{ sessionId: ORIGIN, keys: ['pid-1'] }]);

    // the origin's bytes change but its size and mtime do not: not read again
    const { atime, mtime } = statSync(originFile);
    writeFileSync(originFile, readFileSync(originFile, 'utf8').replaceAll('pid-1', 'pid-9'));
    utimesSync(originFile, atime, mtime);
    assert.deepEqual(await keysOfP1(), [{ sessionId: ORIGIN, keys: ['pid-1'] }]);

    // its mtime moves: read again
    utimesSync(originFile, atime, new Date(mtime.getTime() + 1000));
    assert.deepEqual(await keysOfP1(), [{ sessionId: ORIGIN, keys: ['pid-9'] }]);

    // a prompt record of the origin's hook (another key for a prompt) is reason enough too
    appendPromptRecord(home, ORIGIN, {
      v: 1,
      anchorId: 'prompt-from-record',
      promptSha256: sha256Hex('first'),
      promptLength: 5,
      transcriptPath: originFile,
      transcriptSize: 0,
      cwd: '/work/proj',
      workspaceRoot: '/work/proj',
      at: new Date().toISOString(),
    });
    assert.deepEqual(await keysOfP1(), [{ sessionId: ORIGIN, keys: ['pid-9', 'prompt-from-record'] }]);
  } finally {
    await source.dispose();
  }
});
