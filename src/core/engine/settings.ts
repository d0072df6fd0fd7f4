// The user's settings as the engine needs them. The extension reads them from VS Code's configuration, the tests
// build them directly; values of the wrong type fall back to the defaults instead of failing activation.
import { isAbsolute, resolve } from 'node:path';
import { homedir } from 'node:os';
import { resolveHome } from '../home';

export interface EngineSettings {
  home: string;
  fileCheckpointing: {
    enabled: boolean;
    /** Undefined: the file checkpointer's default (<home>/checkpoints/...). */
    storeDir?: string;
    include: string[];
    exclude: string[];
    maxFileSizeBytes: number;
    /** 0: no cap. */
    storeSizeCapBytes: number;
  };
  /** Extra folders scanned and watched for session files. */
  sessionFolders: string[];
  includePiSessions: boolean;
  /** Also list this workspace's Claude Code sessions ($CLAUDE_CONFIG_DIR, ~/.claude, ~/.config/claude). */
  includeClaudeSessions: boolean;
  /** Also list this workspace's Codex CLI sessions ($CODEX_HOME, else ~/.codex). */
  includeCodexSessions: boolean;
}

const MB = 1024 * 1024;

export const DEFAULT_EXCLUDES = ['**/.git/**', '**/node_modules/**'];

/** `get(key)` returns the raw value of `agentRewind.<key>` (undefined when unset). */
export function parseSettings(get: (key: string) => unknown, env: NodeJS.ProcessEnv = process.env): EngineSettings {
  const str = (key: string) => {
    const v = get(key);
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const bool = (key: string, fallback: boolean) => {
    const v = get(key);
    return typeof v === 'boolean' ? v : fallback;
  };
  const num = (key: string, fallback: number) => {
    const v = get(key);
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback;
  };
  const list = (key: string, fallback: string[]) => {
    const v = get(key);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : fallback;
  };
  const home = resolveHome(expandTilde(str('home')), env);
  const storeDir = str('fileCheckpointing.storeLocation');
  return {
    home,
    fileCheckpointing: {
      enabled: bool('fileCheckpointing.enabled', true),
      ...(storeDir ? { storeDir: absoluteFrom(home, expandTilde(storeDir)!) } : {}),
      include: list('fileCheckpointing.include', []),
      exclude: list('fileCheckpointing.exclude', DEFAULT_EXCLUDES),
      maxFileSizeBytes: Math.round(num('fileCheckpointing.maxFileSizeMB', 10) * MB),
      storeSizeCapBytes: Math.round(num('fileCheckpointing.storeSizeCapMB', 2048) * MB),
    },
    sessionFolders: list('sessionFolders', []).map((f) => absoluteFrom(home, expandTilde(f)!)),
    includePiSessions: bool('includePiSessions', true),
    includeClaudeSessions: bool('includeClaudeCodeSessions', true),
    includeCodexSessions: bool('includeCodexSessions', true),
  };
}

function expandTilde(p: string | undefined): string | undefined {
  if (p === undefined) return undefined;
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return resolve(homedir(), p.slice(2));
  return p;
}

function absoluteFrom(base: string, p: string): string {
  return isAbsolute(p) ? resolve(p) : resolve(base, p);
}
