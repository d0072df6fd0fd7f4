import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCheckpointer } from '../../../src/core/files';
import { afterRacyWindow, fingerprint, tempBase, userAnchor, writeTree } from './helpers';

const sh = (cwd: string, script: string) => execFileSync('/bin/sh', ['-c', script], { cwd, stdio: 'pipe' });

test('changes made by shell commands (create, delete, rename, chmod, mkdir -p, rm -rf) are all rewound', async () => {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  try {
    await writeTree(ws, {
      'README.md': '# demo\nline two\n',
      'src/main.ts': 'export const main = 1;\n',
      'src/lib/util.ts': 'export const util = 2;\n',
      'scripts/run.sh': '#!/bin/sh\necho run\n',
      'old-name.txt': 'renamed later\n',
      'empty-dir/.keep': '',
    });
    sh(ws, 'chmod 755 scripts/run.sh && mkdir -p empty-folder');
    await symlink('src/main.ts', join(ws, 'main-link'));
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await fc.snapshot('s', 'u1', 'user-message');
    const before = await fingerprint(ws);

    sh(
      ws,
      [
        'printf "created by the shell\\n" > created.txt',
        'rm README.md',
        'mv old-name.txt new-name.txt',
        'chmod 644 scripts/run.sh',
        'mkdir -p gen/a/b/c && printf "x\\n" > gen/a/b/c/out.txt',
        'rm -rf src',
        'rmdir empty-folder',
        'rm main-link && ln -s README.md main-link',
        "sed -i 's/demo/DEMO/' empty-dir/.keep || true",
      ].join(' && '),
    );

    const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.equal(dry.canRewind, true);
    const byPath = Object.fromEntries(dry.files.map((f) => [f.path, f.status]));
    assert.deepEqual(byPath, {
      'README.md': 'deleted',
      'created.txt': 'added',
      'gen/a/b/c/out.txt': 'added',
      'main-link': 'modified',
      'new-name.txt': 'added',
      'old-name.txt': 'deleted',
      'scripts/run.sh': 'modeChanged',
      'src/lib/util.ts': 'deleted',
      'src/main.ts': 'deleted',
    });
    assert.deepEqual(dry.filesChanged, Object.keys(byPath).sort());
    // lines the rewind undoes: 3 added now (created, out, new-name), 5 removed since (README 2, old-name 1, src 2)
    assert.equal(dry.insertions, 3);
    assert.equal(dry.deletions, 5);
    assert.equal(await lstat(join(ws, 'created.txt')).then(() => true), true, 'a dry run touches nothing');

    const real = await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.deepEqual(real.filesChanged, dry.filesChanged);
    assert.deepEqual(await fingerprint(ws), before, 'the workspace is exactly as at the anchor, folders and modes included');
    assert.equal((await lstat(join(ws, 'main-link'))).isSymbolicLink(), true);
    await fc.dispose();
  } finally {
    await base.cleanup();
  }
});

test('.gitignore (nested too), exclude globs and the size limit are respected and reported; .git is never touched', async () => {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  try {
    await writeTree(ws, {
      '.gitignore': 'build/\n*.log\n',
      'app.ts': 'a\n',
      'debug.log': 'ignored\n',
      'build/out.js': 'ignored\n',
      'pkg/.gitignore': 'secret.txt\n!keep.log\n',
      'pkg/secret.txt': 'ignored by the nested file\n',
      'pkg/keep.log': 'un-ignored by the nested file\n',
      'vendor/big.bin': 'x'.repeat(5000),
      'tmp/cache.dat': 'excluded by a glob\n',
      'nested-repo/.git/HEAD': 'ref: refs/heads/main\n',
      'nested-repo/code.ts': 'nested\n',
    });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home'), maxFileSize: 1000, exclude: ['tmp/**'] });
    const s = await fc.snapshot('s', 'u1');
    assert.deepEqual(s.skipped, [{ path: 'vendor/big.bin', reason: 'larger than the 1000 B limit (4.9 KiB)' }]);
    assert.equal(s.ignoredCount, 4); // debug.log, build/, pkg/secret.txt, tmp/cache.dat
    assert.equal(s.files, 5); // .gitignore, app.ts, pkg/.gitignore, pkg/keep.log, nested-repo/code.ts; nothing from .git
    const gitBefore = await fingerprint(join(ws, 'nested-repo', '.git'));

    sh(
      ws,
      'printf "changed\\n" > debug.log && printf "b\\n" > app.ts && printf "n2\\n" > nested-repo/code.ts && printf "x\\n" > nested-repo/.git/ORIG && rm -rf build pkg/secret.txt',
    );
    const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(dry.filesChanged, ['app.ts', 'nested-repo/code.ts']);
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.equal(await readFile(join(ws, 'app.ts'), 'utf8'), 'a\n');
    assert.equal(await readFile(join(ws, 'debug.log'), 'utf8'), 'changed\n', 'ignored files are left as they are');
    assert.equal(await readFile(join(ws, 'nested-repo/.git/ORIG'), 'utf8'), 'x\n', 'nothing inside a .git is rewound');
    assert.deepEqual(
      (await fingerprint(join(ws, 'nested-repo', '.git'))).filter((l) => !l.startsWith('ORIG')),
      gitBefore,
    );
    await fc.dispose();
  } finally {
    await base.cleanup();
  }
});

test('a file the snapshot has but that is ignored now is not overwritten; binary files count with no lines', async () => {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  try {
    await writeTree(ws, { 'notes.txt': 'mine\n', 'img.bin': 'ab\0cd' });
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    await fc.snapshot('s', 'u1');
    await writeFile(join(ws, '.gitignore'), 'notes.txt\n');
    await writeFile(join(ws, 'notes.txt'), 'private edits\n');
    await writeFile(join(ws, 'img.bin'), 'ab\0ce');
    const dry = await fc.rewindFiles('s', 'u1', { dryRun: true, anchor: userAnchor });
    assert.deepEqual(dry.skipped, [
      { path: 'notes.txt', reason: 'exists now but is not covered by checkpoints (ignored, too large or unreadable); left as it is' },
    ]);
    assert.deepEqual(
      dry.files.find((f) => f.path === 'img.bin'),
      { path: 'img.bin', status: 'modified', insertions: 0, deletions: 0, binary: true, userModified: false, changedBy: 'this-session', kept: false },
    );
    await fc.rewindFiles('s', 'u1', { anchor: userAnchor });
    assert.equal(await readFile(join(ws, 'notes.txt'), 'utf8'), 'private edits\n');
    assert.equal(await lstat(join(ws, '.gitignore')).catch(() => null), null, 'the new .gitignore is removed by the rewind');
    await fc.dispose();
  } finally {
    await base.cleanup();
  }
});

test('snapshots deduplicate: an unchanged workspace adds no objects, one changed file adds one blob plus its trees', async () => {
  const base = await tempBase();
  const ws = join(base.dir, 'ws');
  try {
    await writeTree(ws, { 'a/b/c.txt': 'c\n', 'a/d.txt': 'd\n', 'e.txt': 'e\n' });
    await mkdir(join(ws, 'z'));
    // files written this very second are re-hashed once more (they may change again within the same mtime tick)
    const past = new Date(Date.now() - 60_000);
    for (const f of ['a/b/c.txt', 'a/d.txt', 'e.txt']) await utimes(join(ws, f), past, past);
    await afterRacyWindow(); // and their ctimes, which utimes() just set
    const fc = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    const s1 = await fc.snapshot('s', 'u1');
    assert.equal(s1.newObjects, 3 + 4); // 3 blobs, trees: root, a, a/b, z
    const s2 = await fc.snapshot('s', 'u2');
    assert.equal(s2.newObjects, 0);
    assert.equal(s2.hashedFiles, 0, 'the stat cache spares re-reading unchanged files');
    await writeFile(join(ws, 'a/b/c.txt'), 'c2\n');
    const fresh = new FileCheckpointer({ workspaceRoot: ws, home: join(base.dir, 'home') });
    const s3 = await fresh.snapshot('s', 'u3');
    assert.equal(s3.newObjects, 1 + 3); // the blob, trees a/b, a, root
    await fc.dispose();
    await fresh.dispose();
  } finally {
    await base.cleanup();
  }
});
