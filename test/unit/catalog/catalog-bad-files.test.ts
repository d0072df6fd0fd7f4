import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Catalog } from '../../../src/core/catalog';
import { catalogFixture, fingerprint, type CatalogFixture } from './catalog-fixture';

describe('catalog: damaged session files are listed with their problem and never touched', () => {
  let fx: CatalogFixture;
  before(async () => {
    fx = await catalogFixture();
    await writeFile(join(fx.sessions, '2026-01-01T00-00-00-000Z_empty-one.jsonl'), '');
    await writeFile(
      join(fx.sessions, '2026-01-01T00-00-00-000Z_no-header.jsonl'),
      'this is not json\n{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"orphan walrus"}}\n',
    );
    const simple = await readFile(join(fx.sessions, 'simple-session.v3.jsonl'), 'utf8');
    const lines = simple.split('\n');
    lines.splice(2, 0, '{"type":"message", broken');
    await writeFile(join(fx.sessions, 'simple-session.v3.jsonl'), lines.join('\n'));
  });
  after(() => fx.cleanup());

  it('indexes what can be read, reports the rest, and changes no byte', async () => {
    const beforeBytes = await fingerprint(fx.sessions);
    const catalog = await Catalog.open({ home: fx.home });
    try {
      const r = await catalog.refresh([{ path: fx.sessions, source: 'pi' }]);
      assert.deepEqual(r, { indexed: 6, removed: 0, unchanged: 0, failed: [] });
      const byId = new Map(catalog.listSessions().map((s) => [s.sessionId, s]));
      assert.deepEqual([byId.get('empty-one')?.problem, byId.get('empty-one')?.messageCount, byId.get('empty-one')?.cwd], ['empty file', 0, '']);
      assert.deepEqual([byId.get('no-header')?.problem, byId.get('no-header')?.messageCount], ['no valid session header; 1 unreadable line(s)', 0]);
      // nothing of a file without a header is offered as a message of some made-up session
      assert.deepEqual(catalog.search('walrus'), []);
      const simple = byId.get('a1b2c3d4-e5f6-7890-abcd-ef1234567890')!;
      assert.equal(simple.problem, '1 unreadable line(s)');
      assert.deepEqual(
        catalog.search('"Hello world content"').map((h) => h.entryId),
        ['00000005', '00000006'],
      );
    } finally {
      await catalog.close();
    }
    // no backup, no migration, no lock file, no new file: the folder is exactly as it was
    assert.deepEqual(await fingerprint(fx.sessions), beforeBytes);
  });
});
