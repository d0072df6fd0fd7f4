// ESLint rule `agent-rewind/core-through-index`: src/extension and src/cli reach src/core only through each folder's
// index (`../core/files`, never `../core/files/store/object-store`), so a folder's insides can move without touching the
// layers above it (docs/ARCHITECTURE.md, "Layers"). Static imports, re-exports and `import()` are all checked; the
// path is resolved, so only what really lands in src/core counts. Inside src/core (core → core) deep imports stay
// allowed: the rule is switched on for src/extension and src/cli only (eslint.config.mjs).
//
// Option `allow`: the few modules a fresh CLI process loads on purpose without their folder's index, because the
// index would evaluate the whole folder where a module graph is kept small (start-up, the agents' hooks; held by
// test/unit/cli/lazy-commands.test.ts). Paths relative to src/core, without extension.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const CORE = fileURLToPath(new URL('../../src/core', import.meta.url));

/** The path inside src/core an import names ('files', 'files/store/object-store'), or undefined when it lands elsewhere. */
function insideCore(fromFile, source) {
  if (!source.startsWith('.')) return undefined;
  const rel = relative(CORE, resolve(dirname(fromFile), source));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/** @type {import('eslint').Rule.RuleModule} */
export const coreThroughIndex = {
  meta: {
    type: 'problem',
    docs: { description: "src/extension and src/cli import src/core only through each folder's index" },
    schema: [{ type: 'object', properties: { allow: { type: 'array', items: { type: 'string' } } }, additionalProperties: false }],
    messages: {
      deep: "'{{source}}' reaches inside src/core/{{folder}}: import '{{index}}' (its index.ts) instead, and export what is missing there.",
    },
  },
  create(context) {
    const allow = new Set(context.options[0]?.allow ?? []);
    const check = (node) => {
      if (node?.type !== 'Literal' || typeof node.value !== 'string') return;
      const inner = insideCore(context.filename, node.value);
      if (inner === undefined) return;
      const parts = inner.split('/');
      if (parts.length === 1 || (parts.length === 2 && parts[1] === 'index') || allow.has(inner)) return;
      const index = node.value.slice(0, node.value.length - inner.length) + parts[0];
      context.report({ node, messageId: 'deep', data: { source: node.value, folder: parts[0], index } });
    };
    return {
      ImportDeclaration: (n) => check(n.source),
      ExportNamedDeclaration: (n) => check(n.source),
      ExportAllDeclaration: (n) => check(n.source),
      ImportExpression: (n) => check(n.source),
      TSImportType: (n) => check(n.argument?.type === 'TSLiteralType' ? n.argument.literal : n.argument),
    };
  },
};
