// The ignore rules a folder is scanned under are the .gitignores of the folder and of every folder above it, the root's
// first. The scan asks for them once per folder; matched by walking up the folder's path, a tree 2,000 folders deep made
// that cubic (a snapshot of it took half a minute), so where fewer folders have a .gitignore than the folder is deep
// the .gitignores are matched against the path instead. Both ways must give the same chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PathFilter, type IgnoreLevel } from '../../../src/core/files/scan/path-filter';
import { WorkspaceModel } from '../../../src/core/files/scan/workspace-model';

function level(base: string): IgnoreLevel {
  return { base, rules: PathFilter.parseGitignore('*.log\n'), key: base };
}

/** What the chain is by definition: every folder with a .gitignore that is the folder itself or above it, root first. */
function expected(gitignores: readonly string[], relDir: string): string[] {
  const above = (base: string) => base === '' || relDir === base || relDir.startsWith(base + '/');
  return gitignores.filter(above).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.split('/').length - b.split('/').length));
}

const segment = fc.constantFrom('a', 'b', 'ab', 'a.b', 'b-a', 'node_modules');
const folder = fc.array(segment, { minLength: 0, maxLength: 12 }).map((parts) => parts.join('/'));

test('the chain of ignore rules of a folder: its own and every .gitignore above it, the root first, however many there are', () => {
  fc.assert(
    fc.property(fc.uniqueArray(folder, { maxLength: 20 }), fc.array(folder, { minLength: 1, maxLength: 20 }), (withGitignore, asked) => {
      const model = new WorkspaceModel('/ws', new PathFilter({}), 1024);
      for (const base of withGitignore) model.gitignores.set(base, level(base));
      // every folder with a .gitignore is asked for too, and those below them
      for (const relDir of [...asked, ...withGitignore, ...withGitignore.map((b) => (b ? `${b}/a` : 'a'))])
        assert.deepEqual(
          model.chainFor(relDir).map((l) => l.base),
          expected(withGitignore, relDir),
          relDir,
        );
    }),
    { numRuns: 300 },
  );
});

test('a folder whose name starts with that of a folder with a .gitignore is not under its rules', () => {
  const model = new WorkspaceModel('/ws', new PathFilter({}), 1024);
  for (const base of ['', 'a', 'a/b']) model.gitignores.set(base, level(base));
  // deeper than there are .gitignores, and not: both ways of matching
  for (const relDir of ['ab', 'ab/c', 'a/bc', 'a/bc/d/e/f/g', 'a/b', 'a/b/c/d/e/f'])
    assert.deepEqual(
      model.chainFor(relDir).map((l) => l.base),
      expected(['', 'a', 'a/b'], relDir),
      relDir,
    );
});
