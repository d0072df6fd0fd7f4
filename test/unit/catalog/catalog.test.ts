import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { appendFile, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Catalog } from '../../../src/core/catalog';
import { loadSqlJs } from '../../../src/core/sqljs-loader';
import { readSessionSummary } from '../../../src/core/sources/pi/discovery';
import { catalogFixture, fingerprint, type CatalogFixture } from './catalog-fixture';

const SIMPLE = 'simple-session.v3.jsonl';
const BRANCHY = 'session-with-branch-summary.v3.jsonl';
const COMPACTED = 'session-with-compaction.v3.jsonl';
const V1 = 'before-compaction.v1.jsonl';

describe('catalog over the pi fixtures', () => {
  let fx: CatalogFixture;
  let folder: { path: string; source: 'pi' }[];
  before(async () => {
    fx = await catalogFixture();
    folder = [{ path: fx.sessions, source: 'pi' }];
  });
  after(() => fx.cleanup());

  it('starts empty without a db file, indexes every session and changes no session file', async () => {
    const before = await fingerprint(fx.sessions);
    const catalog = await Catalog.open({ home: fx.home });
    try {
      assert.equal(catalog.rebuiltBecause, 'missing');
      assert.deepEqual(catalog.listSessions(), []);
      const result = await catalog.refresh(folder);
      assert.deepEqual(result, { indexed: 4, removed: 0, unchanged: 0, failed: [] });
      const sessions = catalog.listSessions();
      assert.deepEqual(sessions.map((s) => s.ref.split('/').pop()).sort(), [V1, BRANCHY, COMPACTED, SIMPLE].sort());
      const v1 = sessions.find((s) => s.ref.endsWith(V1))!;
      assert.equal(v1.sessionId, 'ffae836b-9420-4060-ac13-7745215f90ff');
      assert.equal(v1.fileVersion, 1);
      assert.equal(v1.cwd, '/Users/badlogic/workspaces/pi-mono');
      assert.ok(v1.messageCount > 900, `v1 messages: ${v1.messageCount}`);
      const simple = sessions.find((s) => s.ref.endsWith(SIMPLE))!;
      assert.equal(simple.title, 'Hello, help me with something');
      assert.equal(simple.activeBranch, 'main');
      assert.equal(simple.entryCount, 6);
    } finally {
      await catalog.close();
    }
    // the v1 file was migrated in memory only: no rewrite, no backup, no lock file next to the sessions
    assert.deepEqual(await fingerprint(fx.sessions), before);
  });

  it('finds message text in every fixture, with session, entry id, branch and a highlighted snippet', async () => {
    const catalog = await Catalog.open({ home: fx.home });
    try {
      assert.equal(catalog.rebuiltBecause, undefined);
      const tool = catalog.search('"Hello world content"');
      assert.deepEqual(
        tool.map((h) => [h.ref.split('/').pop(), h.entryId, h.kind]),
        [
          [SIMPLE, '00000005', 'toolResult'],
          [SIMPLE, '00000006', 'assistant'],
        ],
      );
      const hit = tool[0]!;
      assert.equal(hit.sessionId, 'a1b2c3d4-e5f6-7890-abcd-ef1234567890');
      assert.equal(hit.title, 'Hello, help me with something');
      assert.equal(hit.branch, 'main');
      assert.equal(hit.entryIdStable, true);
      assert.deepEqual(
        hit.highlights.map(([s, e]) => hit.snippet.slice(s, e)),
        ['Hello', 'world', 'content'],
      );

      const compaction = catalog.search('"Working on test project"');
      assert.deepEqual(
        compaction.map((h) => [h.ref.split('/').pop(), h.entryId, h.kind]),
        [[COMPACTED, '00000005', 'compaction']],
      );

      // branch-summary fixture: message 4 is only on the abandoned tip, the summary is on the active branch
      const approachB = catalog.search('approach B');
      const byEntry = new Map(approachB.map((h) => [h.entryId, h]));
      assert.equal(byEntry.get('00000004')?.branch, 'tip-00000004');
      assert.equal(byEntry.get('00000005')?.branch, 'main');
      assert.deepEqual(
        catalog.branchesOf(join(fx.sessions, BRANCHY)).map((b) => [b.name, b.active, b.headEntryId]),
        [
          ['main', true, '00000007'],
          ['tip-00000004', false, '00000004'],
        ],
      );

      const v1 = catalog.search('refactored nicer');
      assert.equal(v1.length, 1);
      assert.equal(v1[0]!.ref, join(fx.sessions, V1));
      assert.equal(v1[0]!.kind, 'user');
      assert.equal(v1[0]!.entryIdStable, false);

      // the last word is a prefix while typing; cwd limits the sessions
      assert.ok(catalog.search('refact').some((h) => h.ref.endsWith(V1)));
      assert.deepEqual(catalog.search('refact', { cwd: '/home/will/projects/test-project' }), []);
      assert.ok(catalog.search('hello', { cwd: '/home/will/projects/test-project' }).every((h) => h.ref.endsWith(SIMPLE)));
      assert.equal(catalog.search('the', { limit: 3 }).length, 3);
      assert.ok(catalog.search('the', { perSession: 1 }).length <= 4);
    } finally {
      await catalog.close();
    }
  });

  it('treats FTS syntax in a query as text and never throws', async () => {
    const catalog = await Catalog.open({ home: fx.home });
    try {
      const nasty = [
        '"',
        '""',
        '"unbalanced',
        'AND',
        'OR NOT',
        'NEAR/2 x',
        '*',
        '-hello',
        'hello*',
        '(hello',
        'a:b',
        '^start',
        "it's",
        '\\',
        '%_',
        '\u0000',
        '',
        '   ',
        'SELECT * FROM sessions; --',
      ];
      for (const q of nasty) assert.doesNotThrow(() => catalog.search(q), `query ${JSON.stringify(q)}`);
      // "and" is a word here, not an operator: it must be found as one
      const and = catalog.search('AND');
      assert.ok(and.length > 0 && and.every((h) => /\band\b/i.test(h.snippet)), 'AND is searched as a word');
      assert.deepEqual(
        catalog.search('-hello').map((h) => h.entryId),
        catalog.search('hello').map((h) => h.entryId),
      );
    } finally {
      await catalog.close();
    }
  });

  it('reindexes a changed file and leaves the others alone', async () => {
    await appendFile(
      join(fx.sessions, SIMPLE),
      JSON.stringify({
        type: 'message',
        id: '00000007',
        parentId: '00000006',
        timestamp: '2026-01-25T10:01:00.000Z',
        message: { role: 'user', content: 'zebra crossing please' },
      }) + '\n',
    );
    const catalog = await Catalog.open({ home: fx.home });
    try {
      assert.deepEqual(await catalog.refresh(folder), { indexed: 1, removed: 0, unchanged: 3, failed: [] });
      const hits = catalog.search('zebra');
      assert.deepEqual(
        hits.map((h) => [h.entryId, h.kind]),
        [['00000007', 'user']],
      );
      assert.equal(catalog.listSessions().find((s) => s.ref.endsWith(SIMPLE))!.entryCount, 7);
      // the old rows were replaced, not duplicated
      assert.equal(catalog.search('"Hello world content"').length, 2);
    } finally {
      await catalog.close();
    }
  });

  it('removes the rows of a deleted file (folder scan, summaries and a single file)', async () => {
    await rm(join(fx.sessions, COMPACTED));
    const catalog = await Catalog.open({ home: fx.home });
    try {
      assert.deepEqual(await catalog.refresh(folder), { indexed: 0, removed: 1, unchanged: 3, failed: [] });
      assert.deepEqual(catalog.search('"Working on test project"'), []);
      assert.equal(catalog.listSessions().length, 3);

      // a listing of summaries (what discovery returns) works the same
      const summaries = await Promise.all((await readdir(fx.sessions)).filter((n) => n !== BRANCHY).map((n) => readSessionSummary(join(fx.sessions, n), 'pi')));
      const r = await catalog.refresh(summaries.filter((s) => s !== undefined).map((s) => ({ ref: s.file, source: s.source })));
      assert.deepEqual(r, { indexed: 0, removed: 1, unchanged: 2, failed: [] });
      assert.ok(!catalog.search('different approach', { limit: 500, perSession: 500 }).some((h) => h.ref.endsWith(BRANCHY)));

      await rm(join(fx.sessions, SIMPLE));
      assert.equal(await catalog.refreshSession(join(fx.sessions, SIMPLE)), 'removed');
      assert.deepEqual(catalog.search('zebra'), []);
      assert.deepEqual(
        catalog.listSessions().map((s) => s.ref),
        [join(fx.sessions, V1)],
      );
    } finally {
      await catalog.close();
    }
    // the removals were saved
    const again = await Catalog.open({ home: fx.home });
    try {
      assert.equal(again.listSessions().length, 1);
    } finally {
      await again.close();
    }
  });
});

describe('catalog file: rebuilt when unreadable, saved atomically', () => {
  let fx: CatalogFixture;
  let folder: { path: string; source: 'pi' }[];
  let dbFile: string;
  before(async () => {
    fx = await catalogFixture();
    folder = [{ path: fx.sessions, source: 'pi' }];
    dbFile = join(fx.home, 'catalog.sqlite');
    await rm(join(fx.sessions, V1)); // keeps these tests quick
    const catalog = await Catalog.open({ home: fx.home });
    await catalog.refresh(folder);
    await catalog.close();
  });
  after(() => fx.cleanup());

  it('leaves only the db in the home after a save (no temp files)', async () => {
    assert.deepEqual(await readdir(fx.home), ['catalog.sqlite']);
  });

  for (const [name, damage] of [
    ['garbage', () => writeFile(dbFile, 'this is not a database, it is a note')],
    ['empty', () => writeFile(dbFile, '')],
    ['truncated (a killed non-atomic writer)', async () => truncate(dbFile, Math.floor((await readFile(dbFile)).length / 3))],
  ] as const) {
    it(`rebuilds a ${name} db file from the session files`, async () => {
      const good = await Catalog.open({ home: fx.home });
      await good.close();
      await damage();
      const warnings: string[] = [];
      const catalog = await Catalog.open({ home: fx.home, warn: (m) => warnings.push(m) });
      try {
        assert.equal(catalog.rebuiltBecause, 'corrupt');
        assert.match(warnings.join('\n'), /rebuilt from the session files/);
        assert.deepEqual(catalog.listSessions(), []);
        assert.deepEqual(await catalog.refresh(folder), { indexed: 3, removed: 0, unchanged: 0, failed: [] });
        assert.equal(catalog.search('zebra OR').length, 0);
        assert.equal(catalog.search('approach').length > 0, true);
      } finally {
        await catalog.close();
      }
      const reopened = await Catalog.open({ home: fx.home });
      try {
        assert.equal(reopened.rebuiltBecause, undefined);
        assert.equal(reopened.listSessions().length, 3);
      } finally {
        await reopened.close();
      }
    });
  }

  it('rebuilds a db of another schema version', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database(await readFile(dbFile));
    db.run('PRAGMA user_version = 999');
    await writeFile(dbFile, db.export());
    db.close();
    const catalog = await Catalog.open({ home: fx.home });
    try {
      assert.equal(catalog.rebuiltBecause, 'schema');
      assert.equal((await catalog.refresh(folder)).indexed, 3);
    } finally {
      await catalog.close();
    }
    const reopened = await Catalog.open({ home: fx.home });
    assert.equal(reopened.rebuiltBecause, undefined);
    await reopened.close();
  });

  it('saves once, a moment after a refresh pass, not per session', async () => {
    await rm(dbFile);
    const catalog = await Catalog.open({ home: fx.home, saveDelayMs: 30 });
    try {
      await catalog.refresh(folder);
      // checked in the same turn the refresh finished in: the save timer cannot have run yet
      assert.equal(existsSync(dbFile), false, 'not saved per session, nor at once');
      const deadline = Date.now() + 10_000;
      while (!existsSync(dbFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const saved = await Catalog.open({ home: fx.home });
      assert.equal(saved.listSessions().length, 3);
      await saved.close();
    } finally {
      await catalog.close();
    }
  });

  it('two catalogs saving the same file leave one complete db', async () => {
    const a = await Catalog.open({ home: fx.home });
    const b = await Catalog.open({ home: fx.home });
    await appendFile(
      join(fx.sessions, SIMPLE),
      JSON.stringify({ type: 'message', id: 'x1', parentId: '00000006', timestamp: '2026-01-25T11:00:00.000Z', message: { role: 'user', content: 'quokka' } }) +
        '\n',
    );
    await Promise.all([a.refresh(folder), b.refresh(folder)]);
    await Promise.all([a.close(), b.close()]);
    const c = await Catalog.open({ home: fx.home });
    try {
      assert.equal(c.rebuiltBecause, undefined);
      assert.equal(c.search('quokka').length, 1);
    } finally {
      await c.close();
    }
  });
});

describe('catalog: close() during a refresh', () => {
  let fx: CatalogFixture;
  before(async () => {
    fx = await catalogFixture();
  });
  after(() => fx.cleanup());

  it('stops the pass early and saves only whole sessions', async () => {
    const folder = [{ path: fx.sessions, source: 'pi' as const }];
    const catalog = await Catalog.open({ home: fx.home });
    const pass = catalog.refresh(folder);
    // close while the pass is under way (it yields between files and slices, where it sees close())
    await catalog.close();
    const partial = await pass;
    assert.ok(partial.indexed < 4, `the pass went on after close(): ${JSON.stringify(partial)}`);
    assert.equal(partial.removed, 0);

    const reopened = await Catalog.open({ home: fx.home });
    try {
      assert.equal(reopened.rebuiltBecause, partial.indexed === 0 ? 'missing' : undefined);
      // no half-indexed session was saved: every row that is there is complete
      for (const s of reopened.listSessions()) assert.ok(s.stamp !== '', `${s.ref} saved half-indexed`);
      const r = await reopened.refresh(folder);
      assert.equal(r.indexed + r.unchanged, 4);
      assert.equal(reopened.search('"Hello world content"').length, 2);
    } finally {
      await reopened.close();
    }
  });
});
