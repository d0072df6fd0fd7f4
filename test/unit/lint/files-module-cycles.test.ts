// No module of src/core/files imports one that imports it back (issue 21): the folder is read as four rooms (store,
// scan, restore, workers), and a loop between two files makes neither readable alone. Every form of import counts,
// type-only too, as in core-layers.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { folderCycles, importSpecifiers, importedFile, tsFilesUnder, type FolderEdge } from './source-graph';

const FILES = resolve(__dirname, '../../../src/core/files');

/** The import graph between the modules under `root`, one node per file. */
function moduleGraph(root: string): FolderEdge[] {
  const edges: FolderEdge[] = [];
  for (const file of tsFilesUnder(root)) {
    const from = relative(root, file);
    for (const spec of importSpecifiers(file, readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = importedFile(file, spec);
      if (target.startsWith(root + sep)) edges.push({ from, to: relative(root, target), via: [`${from}: ${spec}`] });
    }
  }
  return edges;
}

test('no module of src/core/files imports one that imports it back', () => {
  const edges = moduleGraph(FILES);
  assert.ok(
    edges.some((e) => e.from === 'file-checkpointer.ts' && e.to === 'store/object-store.ts'),
    'the graph sees the checkpointer over the store',
  );
  assert.deepEqual(folderCycles(edges), []);
});
