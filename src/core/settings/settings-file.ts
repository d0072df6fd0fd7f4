// Settings outside VS Code (the CLI, Claude Code's hooks): the same agentRewind.* keys the extension reads, from the
// file settings-source.ts finds, composed by the same parseSettings (settings.ts), so every process that snapshots a
// workspace builds the same FileCheckpointer options.
import { readFileSync } from 'node:fs';
import { fileCheckpointerOptions, parseSettings, type EngineSettings } from './settings';
import type { FileCheckpointerOptions } from '../files/types';
import { settingsSource } from './settings-source';

/** JSON with comments (// and /* *\/) and trailing commas, as VS Code writes settings.json. */
export function parseJsonc(text: string): unknown {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  // a comma before a closing bracket (outside strings: the strings were copied as they are, so mask them first)
  const masked = out.replace(/"(?:[^"\\]|\\.)*"/g, (m) => '"' + '\u0000'.repeat(m.length - 2) + '"');
  let result = '';
  for (let k = 0; k < out.length; k++) {
    if (masked[k] === ',') {
      let m = k + 1;
      while (m < out.length && /\s/.test(masked[m]!)) m++;
      if (masked[m] === '}' || masked[m] === ']') continue;
    }
    result += out[k];
  }
  return JSON.parse(result);
}

/** `get(key)` over one settings object: "agentRewind.<key>" flat (VS Code's form), "<key>" flat, or nested. */
function getterOf(obj: Record<string, unknown>): (key: string) => unknown {
  const nested = (path: string[]): unknown => {
    let cur: unknown = obj;
    for (const p of path) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = (cur as Record<string, unknown>)[p];
    }
    return cur;
  };
  return (key) => obj[`agentRewind.${key}`] ?? obj[key] ?? nested(['agentRewind', ...key.split('.')]) ?? nested(key.split('.'));
}

/** The keys of every boolean setting in the object, in the forms getterOf reads: the file holds only what the person
 *  set, so each agent's switch (settings.ts `switches`) is among them when it is set at all. */
function booleanKeysOf(obj: Record<string, unknown>): string[] {
  const keys: string[] = [];
  const walk = (o: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(o)) {
      const key = prefix + k;
      if (typeof v === 'boolean') keys.push(key.replace(/^agentRewind\./, ''));
      else if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, `${key}.`);
    }
  };
  walk(obj, '');
  return keys;
}

export interface CliSettings {
  settings: EngineSettings;
  /** The file the settings came from; undefined: the defaults. */
  source?: string;
  /** Why the source could not be used (the defaults were). */
  problem?: string;
}

export function loadCliSettings(home: string, env: NodeJS.ProcessEnv = process.env, userHome?: string): CliSettings {
  const source = settingsSource(home, userHome);
  let get: (key: string) => unknown = () => undefined;
  let switchKeys: string[] = [];
  let problem: string | undefined;
  if (source) {
    try {
      const parsed = parseJsonc(readFileSync(source, 'utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        get = getterOf(parsed as Record<string, unknown>);
        switchKeys = booleanKeysOf(parsed as Record<string, unknown>);
      } else problem = `${source} does not hold a JSON object`;
    } catch (err) {
      problem = `${source} cannot be read: ${(err as Error).message}`;
    }
  }
  // the home is the CLI's own (--home, $AGENT_REWIND_HOME): the settings do not move it under the command's feet
  const settings = parseSettings((key) => (key === 'home' ? home : get(key)), env, switchKeys);
  return { settings, ...(source && !problem ? { source } : {}), ...(problem ? { problem } : {}) };
}

/** The FileCheckpointer options of a workspace outside VS Code: the extension's, from the same settings. */
export function cliCheckpointerOptions(home: string, workspaceRoot: string, warn: (message: string) => void): FileCheckpointerOptions {
  const { settings, problem } = loadCliSettings(home);
  if (problem) warn(`${problem}; using the default file-checkpoint settings`);
  return fileCheckpointerOptions(settings, workspaceRoot);
}
