// Files import one way too, not only src/core's folders: two modules that import each other (even for a type, or
// through a lazy require) can be neither read nor changed alone. Over src/ and webview-ui/src, every strongly
// connected set of files fails with the imports that tie it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileImportGraph, folderCycles, type FolderEdge } from './source-graph';

const ROOT = resolve(__dirname, '../../..');

function describe(edges: FolderEdge[], cycles: string[][]): string {
  return cycles
    .map(
      (c) =>
        `files that import each other: ${c.join(', ')}\n${edges
          .filter((e) => c.includes(e.from) && c.includes(e.to))
          .flatMap((e) => e.via.map((v) => `  ${v}`))
          .join('\n')}`,
    )
    .join('\n');
}

test('no file of src/ or webview-ui/src imports one that imports it back', () => {
  const edges = fileImportGraph(ROOT, [join(ROOT, 'src'), join(ROOT, 'webview-ui', 'src')]);
  assert.ok(
    edges.some((e) => e.from === join('src', 'core', 'engine', 'engine.ts')),
    'the graph sees the engine’s imports',
  );
  const cycles = folderCycles(edges);
  assert.deepEqual(cycles, [], describe(edges, cycles));
});

test('a loop of files is found, through a type-only import and a lazy require', () => {
  const dir = mkdtempSync(join(tmpdir(), 'file-cycles-'));
  try {
    mkdirSync(join(dir, 'src', 'x'), { recursive: true });
    writeFileSync(join(dir, 'src', 'a.ts'), "import type { B } from './x/b';\nexport type A = B;\n");
    writeFileSync(join(dir, 'src', 'x', 'b.ts'), "export const load = () => require('./c');\nexport type B = 1;\n");
    writeFileSync(join(dir, 'src', 'x', 'c.ts'), "import type { A } from '../a';\nexport type C = A;\n");
    writeFileSync(join(dir, 'src', 'd.ts'), "import type { A } from './a';\nexport type D = A;\n");
    const cycles = folderCycles(fileImportGraph(dir, [join(dir, 'src')]));
    assert.deepEqual(cycles, [[join('src', 'a.ts'), join('src', 'x', 'b.ts'), join('src', 'x', 'c.ts')]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
