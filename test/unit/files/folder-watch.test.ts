// The folder watches under the checkpointer's watcher (scan/folder-watch.ts): Node's bare watch handle where it has the
// interface fs.watch uses, fs.watch anywhere else, with the same events and the same errors either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { folderWatches, type FolderWatchKind } from '../../../src/core/files/scan/folder-watch';
import { tempBase } from './helpers';

interface Seen {
  rel: string;
  event: string;
  name: string | undefined;
}

async function eventsOf(prefer: FolderWatchKind | undefined, act: (dir: string) => Promise<void>): Promise<{ kind: string | undefined; seen: Seen[] }> {
  const base = await tempBase('arw-folder-watch-');
  const seen: Seen[] = [];
  const errors: string[] = [];
  const watches = folderWatches(
    (rel, event, name) => seen.push({ rel, event, name: name?.toString('utf8') }),
    (rel) => errors.push(rel),
    prefer,
  );
  const w = watches.start(base.dir, 'top');
  try {
    await act(base.dir);
    for (let i = 0; i < 100 && !seen.some((s) => s.name === 'done'); i++) await new Promise((r) => setTimeout(r, 20));
  } finally {
    w.close();
    await base.cleanup();
  }
  assert.deepEqual(errors, []);
  return { kind: watches.kind, seen };
}

const act = async (dir: string) => {
  await writeFile(join(dir, 'a.txt'), 'a');
  await rename(join(dir, 'a.txt'), join(dir, 'b.txt'));
  await mkdir(join(dir, 'sub'));
  await writeFile(join(dir, 'done'), '');
};

/** What each name got (rename or change), in order of first event: both ways must say the same of the same acts. */
const byName = (seen: Seen[]) => {
  const out = new Map<string, Set<string>>();
  for (const s of seen) {
    assert.equal(s.rel, 'top');
    if (s.name === undefined) continue;
    if (!out.has(s.name)) out.set(s.name, new Set());
    out.get(s.name)!.add(s.event);
  }
  return Object.fromEntries([...out].map(([k, v]) => [k, [...v].sort()]));
};

test('on this Node the bare handle is used, and it reports what fs.watch reports, names as bytes', async () => {
  const handle = await eventsOf(undefined, act);
  const fsWatch = await eventsOf('fs.watch', act);
  assert.equal(handle.kind, 'handle');
  assert.equal(fsWatch.kind, 'fs.watch');
  for (const name of ['a.txt', 'b.txt', 'sub', 'done']) assert.ok(byName(handle.seen)[name]?.includes('rename'), `${name}: ${JSON.stringify(handle.seen)}`);
  assert.deepEqual(byName(handle.seen), byName(fsWatch.seen));
});

test('a folder that cannot be watched fails the same way both ways (the error code fs-watcher.ts decides on)', async () => {
  const base = await tempBase('arw-folder-watch-');
  try {
    for (const prefer of [undefined, 'fs.watch'] as const) {
      const watches = folderWatches(
        () => {},
        () => {},
        prefer,
      );
      assert.throws(
        () => watches.start(join(base.dir, 'missing'), 'missing'),
        (err: NodeJS.ErrnoException) => err.code === 'ENOENT',
        String(prefer),
      );
    }
  } finally {
    await base.cleanup();
  }
});

/** Runs `f` with process.binding answering `fake` for the watch handle's module. */
async function withBinding<T>(fake: unknown, f: () => Promise<T>): Promise<T> {
  const proc = process as unknown as { binding: (name: string) => unknown };
  const real = proc.binding;
  proc.binding = (name: string) => (name === 'fs_event_wrap' ? fake : real.call(process, name));
  try {
    return await f();
  } finally {
    proc.binding = real;
  }
}

test('where the handle is missing or does not answer as fs.watch relies on, fs.watch is used, with its events', async () => {
  class Odd {
    onchange = null;
    start() {
      return undefined; // not the errno fs.watch expects
    }
    close() {}
  }
  const cases: [string, unknown][] = [
    ['no FSEvent', {}],
    ['a binding that throws', undefined],
    ['a start that returns no errno', { FSEvent: Odd }],
  ];
  for (const [what, fake] of cases) {
    const got = await withBinding(
      fake === undefined
        ? new Proxy(
            {},
            {
              get() {
                throw new Error('no such binding');
              },
            },
          )
        : fake,
      () => eventsOf(undefined, act),
    );
    assert.equal(got.kind, 'fs.watch', what);
    assert.ok(byName(got.seen).done?.includes('rename'), `${what}: ${JSON.stringify(got.seen)}`);
  }
});
