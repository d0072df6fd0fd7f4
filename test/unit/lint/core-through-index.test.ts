// The import rule bites (scripts/lint/core-through-index.mjs): a deep import of src/core planted in src/extension or
// src/cli fails `npm run lint`, through the project's own eslint.config.mjs; the index, src/core itself, test/, bench/
// and scripts/ are left alone. Nothing is written: ESLint lints the text as if it were at the given path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const RULE = 'agent-rewind/core-through-index';

async function ruleErrors(relPath: string, code: string): Promise<string[]> {
  const { ESLint } = await import('eslint');
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, relPath) });
  assert.ok(result);
  assert.deepEqual(
    result.messages.filter((m) => m.fatal),
    [],
    'the planted text parses',
  );
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

test('a deep import of src/core from src/cli or src/extension is an error, in every form', async () => {
  const planted: [string, string][] = [
    ['src/cli/commands/planted.ts', "import { ObjectStore } from '../../core/files/store/object-store';\nexport const x = ObjectStore;\n"],
    ['src/cli/planted.ts', "import type { SessionEntry } from '../core/session/types';\nexport type X = SessionEntry;\n"],
    ['src/extension/planted.ts', "export { RewindEngine } from '../core/engine/engine';\n"],
    ['src/extension/tree/planted.ts', "export * from '../../core/catalog/catalog';\n"],
    ['src/cli/commands/planted.ts', "export async function f() {\n  return import('../../core/sources/claude/hooks-settings');\n}\n"],
    ['src/extension/planted.ts', "export type E = import('../core/engine/engine').RewindEngine;\n"],
  ];
  for (const [path, code] of planted) {
    const errors = await ruleErrors(path, code);
    assert.equal(errors.length, 1, `${path}: ${code}`);
    assert.match(errors[0]!, /reaches inside src\/core\/\w+: import '[./]+core\/\w+' \(its index\.ts\)/);
  }
});

test("a folder's index, a top-level core module and the listed lazy entries pass", async () => {
  const code = [
    "import { FileCheckpointer } from '../../core/files';",
    "import { Catalog } from '../../core/catalog/index';",
    "import { resolveHome } from '../../core/home';",
    "export const load = () => import('../../core/sources/claude/hook-handler');",
    'export const x = [FileCheckpointer, Catalog, resolveHome];',
    '',
  ].join('\n');
  assert.deepEqual(await ruleErrors('src/cli/commands/planted.ts', code), []);
});

test('src/core, test/, bench/ and scripts/ may import deep: the rule is for src/extension and src/cli only', async () => {
  const deep = (prefix: string) => `import { ObjectStore } from '${prefix}core/files/store/object-store';\nexport const x = ObjectStore;\n`;
  assert.deepEqual(await ruleErrors('src/core/engine/planted.ts', deep('../')), []);
  assert.deepEqual(await ruleErrors('test/unit/files/planted.test.ts', deep('../../../src/')), []);
  assert.deepEqual(await ruleErrors('bench/files/planted.ts', deep('../../src/')), []);
  assert.deepEqual(await ruleErrors('scripts/planted.mts', deep('../src/')), []);
});
