import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Catalog } from '../../../src/core/catalog';
import { catalogFixture, type CatalogFixture } from './catalog-fixture';

const CHILD = join(__dirname, 'save-loop.child.ts');

/** Starts the saving loop, waits until it has saved `saves` times, then SIGKILLs it after `delayMs` more. */
function killWhileSaving(fx: CatalogFixture, saves: number, delayMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, fx.home, fx.sessions, 'simple-session.v3.jsonl'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = 0;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d: Buffer) => {
      seen += (d.toString().match(/saved/g) ?? []).length;
      if (seen >= saves) setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited with ${code}: ${stderr}`))));
  });
}

describe('catalog: a process killed while saving never leaves an unusable catalog', () => {
  let fx: CatalogFixture;
  before(async () => {
    fx = await catalogFixture();
    await rm(join(fx.sessions, 'before-compaction.v1.jsonl'));
  });
  after(() => fx.cleanup());

  it('the catalog file is always the old or the new complete db', async () => {
    for (const delayMs of [1, 7]) {
      await killWhileSaving(fx, 2, delayMs);
      const catalog = await Catalog.open({ home: fx.home });
      try {
        assert.equal(catalog.rebuiltBecause, undefined, `after a kill ${delayMs} ms into saving: ${catalog.rebuildDetail}`);
        assert.ok(catalog.search('round').length > 0);
        // the session file is ahead of the catalog or equal: one refresh catches up
        await catalog.refresh([{ path: fx.sessions, source: 'pi' }]);
        assert.deepEqual((await catalog.refresh([{ path: fx.sessions, source: 'pi' }])).indexed, 0);
      } finally {
        await catalog.close();
      }
    }
    assert.ok((await readdir(fx.home)).includes('catalog.sqlite'));
  });

  it('removes temp files of writers that died, keeps those of live ones', async () => {
    const dead = join(fx.home, `.catalog.sqlite.999999999.${Date.now()}.0.tmp`);
    const live = join(fx.home, `.catalog.sqlite.${process.pid}.${Date.now()}.0.tmp`);
    const unrelated = join(fx.home, 'notes.tmp');
    for (const f of [dead, live, unrelated]) await writeFile(f, 'partial');
    const catalog = await Catalog.open({ home: fx.home });
    await catalog.close();
    const names = await readdir(fx.home);
    assert.ok(!names.includes(basename(dead)), 'dead writer temp removed');
    assert.ok(names.includes(basename(live)), 'live writer temp kept');
    assert.ok(names.includes('notes.tmp'));
    await rm(live);
  });
});
