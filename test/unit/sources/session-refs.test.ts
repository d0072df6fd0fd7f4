// A session is named by a ref its adapter understands, with a change signal the adapter defines (session-ref.ts).
// Above the adapters, SessionSources finds a ref's adapter without treating the ref as a file, asks its stamp and its
// file, and maps a changed path to the sessions it may have changed: a file per session maps to itself, a database
// to the rows its adapter names.
import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SessionSources } from '../../../src/core/sources/session-sources';
import type { SourceAdapter, SourceContext } from '../../../src/core/sources/source-adapter';
import type { SessionView } from '../../../src/core/sources/session-view';
import { parseSettings } from '../../../src/core/settings/settings';

/** An adapter of files (like ours): `*.jsonl` in a folder, the defaults for stamp, file and change. */
function fileAdapter(dir: string): SourceAdapter {
  return {
    kinds: ['agent-rewind'],
    writable: true,
    list: async () => [],
    watchFolders: () => [{ path: dir, source: 'agent-rewind' }],
    owns: (_ref, firstLine) => firstLine === undefined || firstLine.includes('"session"'),
    open: async (ref) => ({ sessionRef: ref }) as unknown as SessionView,
    rewindConversation: async () => {
      throw new Error('not here');
    },
    forget: async () => {},
    dispose: async () => {},
  };
}

/** Sessions as rows of one database file: refs `<db>#<id>`, stamps from a per-row version. */
function rowAdapter(db: string, versions: Map<string, number>): SourceAdapter & { forgotten: string[] } {
  const forgotten: string[] = [];
  return {
    forgotten,
    kinds: ['rows'],
    writable: false,
    list: async () => [...versions.keys()].map((id) => ({ sessionRef: `${db}#${id}`, sessionId: id, title: id, source: 'rows', modifiedMs: 0 })),
    watchFolders: () => [{ path: join(db, '..'), source: 'rows', pattern: 'rows.db*' }],
    refsOfChange: async () => [...versions.keys()].map((id) => `${db}#${id}`),
    stamp: async (ref) => {
      const v = versions.get(ref.slice(db.length + 1));
      return v === undefined ? undefined : String(v);
    },
    fileOf: () => db,
    owns: (ref) => ref.startsWith(`${db}#`),
    open: async (ref) => ({ sessionRef: ref }) as unknown as SessionView,
    rewindConversation: async () => {
      throw new Error('not here');
    },
    forget: async (ref) => void forgotten.push(ref),
    dispose: async () => {},
  };
}

describe('session refs and the change signal', () => {
  let dir: string;
  let db: string;
  const ctx = (): SourceContext => ({ settings: parseSettings(() => undefined, {}), workspaceRoots: [dir], warn: () => {} });
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ar-refs-'));
    db = join(dir, 'rows.db');
    await writeFile(db, 'SQLite format 3\0');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('gives a ref that is no file to the adapter that claims its shape, not to the fallback for new files', async () => {
    const rows = rowAdapter(db, new Map([['a', 1]]));
    const sources = new SessionSources([fileAdapter(dir), rows]);
    assert.equal(await sources.adapterOf(`${db}#a`), rows);
    assert.equal((await sources.open(`${db}#a`)).sessionRef, `${db}#a`);
    assert.equal(await sources.fileOf(`${db}#a`), db, 'the raw file of a row is its database');
  });

  it('stamps a file by its size and mtime, and a row by what its adapter says', async () => {
    const file = join(dir, 's.jsonl');
    await writeFile(file, '{"type":"session"}\n');
    const versions = new Map([['a', 1]]);
    const sources = new SessionSources([fileAdapter(dir), rowAdapter(db, versions)]);
    const before = await sources.stamp(file);
    assert.ok(before);
    await utimes(file, new Date(), new Date(Date.now() + 5000));
    assert.notEqual(await sources.stamp(file), before, 'a file touched has a new stamp');
    assert.equal(await sources.fileOf(file), file);

    assert.equal(await sources.stamp(`${db}#a`), '1');
    versions.set('a', 2);
    assert.equal(await sources.stamp(`${db}#a`), '2');
    versions.delete('a');
    assert.equal(await sources.stamp(`${db}#a`), undefined, 'a row that is gone has no stamp');
  });

  it('maps a changed path to the sessions it may have changed', async () => {
    const sources = new SessionSources([
      fileAdapter(dir),
      rowAdapter(
        db,
        new Map([
          ['a', 1],
          ['b', 1],
        ]),
      ),
    ]);
    const file = join(dir, 's.jsonl');
    assert.deepEqual(await sources.refsOfChange(file, ctx()), [file], 'a session file is its own ref');
    assert.deepEqual((await sources.refsOfChange(`${db}-wal`, ctx())).sort(), [`${db}#a`, `${db}#b`], "the database's journal: every row it holds");
    assert.deepEqual(await sources.refsOfChange(join(dir, 'notes.txt'), ctx()), [join(dir, 'notes.txt')], 'a path nobody watches names itself');
  });

  it('forgets a ref at the adapter that owns it', async () => {
    const rows = rowAdapter(db, new Map([['a', 1]]));
    const sources = new SessionSources([fileAdapter(dir), rows]);
    await sources.list(ctx());
    await sources.forget(`${db}#a`);
    assert.deepEqual(rows.forgotten, [`${db}#a`]);
  });
});
