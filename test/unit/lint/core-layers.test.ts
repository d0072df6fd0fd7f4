// src/core's folders point one way (docs/ARCHITECTURE.md, "Layers"): no folder imports one that imports it back,
// through any chain, counting every form of import (static, type-only, `import()`, `import('…')` types, require).
// The engine sits on top; sources, catalog and service below it; settings, transcript, session, files... at the
// bottom. A cycle fails with the imports that make it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { folderCycles, folderImportGraph, type FolderEdge } from './source-graph';

const CORE = resolve(__dirname, '../../../src/core');

function describeCycles(edges: FolderEdge[], cycles: string[][]): string {
  return cycles
    .map((c) => {
      const inside = edges.filter((e) => c.includes(e.from) && c.includes(e.to));
      return `cycle among ${c.join(', ')}:\n${inside.map((e) => `  ${e.from} -> ${e.to}\n${e.via.map((v) => `      ${v}`).join('\n')}`).join('\n')}`;
    })
    .join('\n');
}

test('no folder of src/core imports one that imports it back', () => {
  const edges = folderImportGraph(CORE);
  assert.ok(
    edges.some((e) => e.from === 'engine' && e.to === 'sources'),
    'the graph sees the engine over the sources',
  );
  const cycles = folderCycles(edges);
  assert.deepEqual(cycles, [], describeCycles(edges, cycles));
});

test('the engine is on top: no folder of src/core imports it', () => {
  const edges = folderImportGraph(CORE).filter((e) => e.to === 'engine');
  assert.deepEqual(
    edges.map((e) => e.via),
    [],
  );
});

test('every form of import counts: a cycle made by a type-only import, an import() or an import type is found', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-layers-'));
  try {
    const plant = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    plant('low/a.ts', 'export const a = 1;\n');
    plant('top/t.ts', "import { a } from '../low/a';\nexport const t = a;\n");
    plant('top/index.ts', "export { t } from './t';\n");
    plant('solo.ts', "import { t } from './top';\nexport const solo = t;\n");
    assert.deepEqual(folderCycles(folderImportGraph(dir)), []);
    const backEdges = [
      "import type { t } from '../top/t';\nexport type T = typeof t;\n",
      "export const load = () => import('../top/t');\n",
      "export type T = import('../top/t').T;\n",
      "export { t } from '../top';\n",
      "const t = require('../top/t');\nexport default t;\n",
    ];
    for (const back of backEdges) {
      plant('low/b.ts', back);
      const cycles = folderCycles(folderImportGraph(dir));
      assert.deepEqual(cycles, [['low', 'top']], back);
    }
    // a top-level module is a node of its own: solo.ts -> top -> low -> solo.ts is a cycle
    plant('low/b.ts', "export { solo } from '../solo';\n");
    assert.deepEqual(folderCycles(folderImportGraph(dir)), [['low', 'solo.ts', 'top']]);
    // a longer chain is a cycle too
    plant('low/b.ts', "import { m } from '../mid/m';\nexport const b = m;\n");
    plant('mid/m.ts', "import type { t } from '../top/t';\nexport const m = 1 as unknown as typeof t;\n");
    assert.deepEqual(folderCycles(folderImportGraph(dir)), [['low', 'mid', 'top']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
