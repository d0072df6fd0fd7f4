// `npm run lint`: a few rules that catch real mistakes, and the layering as a checked fact:
// - src/core, src/cli and src/shared never import `vscode` (only the thin glue in src/extension does);
// - nothing outside src/extension imports src/extension;
// - the webviews (webview-ui) import nothing host-side: no Node built-ins, no vscode, no src/core, no src/extension;
// - src/shared (bundled into the webviews too) imports neither Node nor src/core;
// - src/extension and src/cli reach src/core only through each folder's index (scripts/lint/core-through-index.mjs).
import tseslint from 'typescript-eslint';
import { coreThroughIndex } from './scripts/lint/core-through-index.mjs';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'crypto', 'worker_threads', 'zlib', 'util', 'url'];
const noImports = (groups, message) => ['error', { patterns: [{ group: groups, message }] }];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.e2e/**', 'test-results/**', '**/*.d.mts'] },
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-debugger': 'error',
      'no-dupe-keys': 'error',
      'no-self-assign': 'error',
      'no-unsafe-finally': 'error',
      'no-unreachable': 'error',
      'no-fallthrough': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': noImports(
        ['vscode', '**/extension/**'],
        'src/core and src/cli never import vscode or src/extension: they run in the CLI and in tests too.',
      ),
    },
  },
  {
    files: ['src/extension/**/*.ts', 'src/cli/**/*.ts'],
    plugins: { 'agent-rewind': { rules: { 'core-through-index': coreThroughIndex } } },
    rules: {
      'agent-rewind/core-through-index': [
        'error',
        // Loaded without their folder's index on purpose: the CLI's start-up, the agents' hook process and the
        // snapshot command keep their module graphs small (test/unit/cli/lazy-commands.test.ts).
        {
          allow: [
            'engine/record-message',
            'settings/settings-source',
            'settings/settings-file',
            'files/anchor-check',
            'files/store/compaction-handoff',
            'service/client',
            'service/fresh-hook-snapshot',
            'service/service-heap',
            'service/service-starter',
            'sources/claude/hook-handler',
            'sources/claude/hook-log',
            'sources/codex/hook-handler',
            'sources/hook-log',
            'sources/registry',
            'sources/session-sources',
            'sources/session-view',
            'sources/source-adapter',
          ],
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': noImports(
        ['vscode', '**/core/**', '**/extension/**', ...nodeBuiltins],
        'src/shared is bundled into the webviews: no Node, no vscode, no host code.',
      ),
    },
  },
  {
    files: ['webview-ui/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['vscode', '**/src/core/**', '**/src/extension/**', '**/src/cli/**', ...nodeBuiltins],
              message: 'webview-ui runs in the browser: only src/shared (and browser libraries) may be imported.',
            },
          ],
        },
      ],
    },
  },
);
