// A refresh of reported paths stats them synchronously (a promise per lstat waited for the thread pool and the event
// loop, most of a prompt's refresh of 10 paths on a loaded machine): on a long list (a fresh process's thousands of
// changed paths) it still lets the event loop in now and then, as a full walk does, so that a service keeps answering.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceModel } from '../../../src/core/files/scan/workspace-model';
import { PathFilter } from '../../../src/core/files/scan/path-filter';
import { DEFAULT_SCAN_TUNING } from '../../../src/core/files/types';
import { hashTrees } from '../../../src/core/files/store/tree';
import { tempBase } from './helpers';

test('a refresh of 4,500 reported paths lets the event loop run during its lstats, and finds the one that changed', async () => {
  const base = await tempBase('arw-refresh-yield-');
  try {
    const ws = base.dir;
    const rels: string[] = [];
    for (let d = 0; d < 3; d++) {
      mkdirSync(join(ws, `d${d}`));
      for (let f = 0; f < 1500; f++) {
        const rel = `d${d}/f${f}.txt`;
        writeFileSync(join(ws, rel), `${rel}\n`);
        utimesSync(join(ws, rel), 1_500_000_000, 1_500_000_000);
        rels.push(rel);
      }
    }
    const model = new WorkspaceModel(ws, new PathFilter({}), 1024 * 1024);
    model.tuning = { ...DEFAULT_SCAN_TUNING, racyMs: -Infinity };
    await model.fullScan({ skipped: [], hashedFiles: 0 });
    const before = hashTrees(model.root);
    writeFileSync(join(ws, 'd2/f1499.txt'), 'changed\n');

    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const stats = { skipped: [], hashedFiles: 0 };
    await model.refreshPaths(rels, stats);
    done = true;

    assert.ok(turns >= 2, `the event loop ran ${turns} times during the refresh`);
    assert.equal(stats.hashedFiles, 1);
    assert.notEqual(hashTrees(model.root), before);
  } finally {
    await base.cleanup();
  }
});
