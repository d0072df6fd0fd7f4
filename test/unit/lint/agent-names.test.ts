// An agent is one folder behind one interface (issue 21): its names (id, display name, the kinds of session it reads
// and their labels, its folder) appear in the code, comments aside, of at most two files outside its own folder
// src/core/sources/<folder>/: the registry's composition file (builtin-agents.ts) and at most one more. Everything
// else asks the registry. The agents are the registry's and every folder under src/core/sources, so one added later
// is held to it without touching this test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { agents } from '../../../src/core/sources/registry';
import { codeWithoutComments, hasWords, tsFilesUnder, wordsOf } from './source-graph';

const ROOT = resolve(__dirname, '../../..');
const MAX_FILES_OUTSIDE = 2;
/** The product's own name is everywhere by right, also as the kind of its own sessions. */
const PRODUCT = 'agent-rewind';

interface AgentNames {
  folder: string;
  names: string[];
}

/** Each agent folder under <src>/core/sources (a folder with an agent.ts, or any folder when none has one yet) with
 *  the names the registry gives the agent living there. */
export function agentNamesUnder(
  src: string,
  registered: readonly { id: string; displayName: string; kinds: readonly { id: string; label: string }[] }[],
): AgentNames[] {
  const sources = join(src, 'core', 'sources');
  const folders = readdirSync(sources).filter((n) => statSync(join(sources, n)).isDirectory());
  return folders.map((folder) => {
    const agent =
      registered.find((a) => a.id === folder) ?? registered.find((a) => existsSync(join(sources, folder, 'agent.ts')) && a.kinds.some((k) => k.id === folder));
    const names = [folder, ...(agent ? [agent.id, agent.displayName, ...agent.kinds.flatMap((k) => [k.id, k.label])] : [])];
    return { folder, names: [...new Set(names)].filter((n) => n !== PRODUCT) };
  });
}

/** Per agent, the files (relative to `root`) outside its folder whose code names it. */
export function namesOutsideFolders(root: string, codeDirs: readonly string[], all: readonly AgentNames[]): Record<string, string[]> {
  const files = codeDirs.flatMap((d) => (existsSync(join(root, d)) ? tsFilesUnder(join(root, d)) : []));
  const words = new Map(files.map((f) => [f, wordsOf(codeWithoutComments(f, readFileSync(f, 'utf8')))]));
  const out: Record<string, string[]> = {};
  for (const agent of all) {
    const own = join(root, 'src', 'core', 'sources', agent.folder) + '/';
    const names = agent.names.map(wordsOf);
    out[agent.folder] = files.filter((f) => !f.startsWith(own) && names.some((n) => hasWords(words.get(f)!, n))).map((f) => relative(root, f));
  }
  return out;
}

test("each agent's name is in the code of at most two files outside its folder", () => {
  const all = agentNamesUnder(join(ROOT, 'src'), agents());
  // the registry's built-in agents all live in folders, and every folder is checked
  for (const a of agents())
    assert.ok(
      all.some((x) => x.names.includes(a.id)),
      `agent ${a.id} has a folder under src/core/sources`,
    );
  const spread = namesOutsideFolders(ROOT, ['src', 'webview-ui/src'], all);
  const over = Object.entries(spread).filter(([, files]) => files.length > MAX_FILES_OUTSIDE);
  assert.deepEqual(
    over,
    [],
    `named outside their folder in more than ${MAX_FILES_OUTSIDE} files:\n${over.map(([a, f]) => `  ${a}: ${f.join(', ')}`).join('\n')}`,
  );
  // the check sees names: the composition file names every built-in agent
  for (const a of agents()) assert.ok(spread[all.find((x) => x.names.includes(a.id))!.folder]!.includes('src/core/sources/builtin-agents.ts'), a.id);
});

test('a new agent is held to it at once, and comments do not count', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-names-'));
  try {
    const plant = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    plant('src/core/sources/zed/agent.ts', "export const zedAgent = { id: 'zed', displayName: 'Zed Helper' };\n");
    plant('src/core/sources/builtin-agents.ts', "import { zedAgent } from './zed/agent';\nexport const all = [zedAgent];\n");
    plant('src/core/engine/x.ts', '// Zed Helper sessions are read by the registry\nexport const x = 1;\n');
    plant('src/extension/y.ts', "export const label = 'Open in Zed Helper';\n");
    const registered = [{ id: 'zed', displayName: 'Zed Helper', kinds: [{ id: 'zed', label: 'Zed Helper' }] }];
    const all = agentNamesUnder(join(dir, 'src'), registered);
    assert.deepEqual(namesOutsideFolders(dir, ['src'], all), { zed: ['src/core/sources/builtin-agents.ts', 'src/extension/y.ts'] });
    plant('src/cli/z.ts', 'export function isZedSession(kind: string) {\n  return kind.length > 0;\n}\n');
    assert.deepEqual(namesOutsideFolders(dir, ['src'], all).zed, ['src/cli/z.ts', 'src/core/sources/builtin-agents.ts', 'src/extension/y.ts']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
