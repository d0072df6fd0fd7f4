// The user's settings as the engine needs them, and the one place where file-checkpoint options are composed for the
// extension and the CLI alike: the extension reads agentRewind.* from VS Code's configuration, the CLI from the same
// keys in the user's settings.json (src/cli/cli-settings.ts), the tests build them directly. Values of the wrong type
// fall back to the defaults instead of failing activation. The defaults are defined here once; package.json's
// contributes.configuration holds the same values (test/unit/engine/settings-defaults.test.ts keeps them equal).
// The scan switches that used to be read from the environment deep in core are read here too, and passed in.
import { basename, isAbsolute, resolve } from 'node:path';
import { homedir } from 'node:os';
import { resolveHome } from '../home';
import { defaultStoreDir } from '../files/store/store-dir';
import type { FileCheckpointerOptions, ScanTuning } from '../files/types';

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
  /** Scan switches (AGENT_REWIND_HASH_THREAD, AGENT_REWIND_HASH_THREAD_AFTER). */
  tuning: ScanTuning;
  /** Boolean settings by key, for the parts that declare their own: each agent's switch for its sessions
   *  (sources/agent.ts `enabledSetting`). A key not here is unset (the declaring part's default applies). */
  switches: Readonly<Record<string, boolean>>;
  /** Modules of extra agents to load (agentRewind.agentModules; absolute paths, each exporting `agent`): see
   *  docs/ARCHITECTURE.md, "Adding an agent". */
  agentModules: string[];
  /** The folder where the editor agent-rewind runs in keeps this window's data (VS Code: the parent of the
   *  extension's storageUri), for agents whose sessions that editor writes itself; unset outside an editor. */
  editorStorage?: string;
  /** The checkpoint service outside VS Code: whether a hook or CLI snapshot that found none serving its folder starts
   *  one (off also with AGENT_REWIND_SERVICE_AUTOSTART=off, or AGENT_REWIND_SERVICE=off), and its idle time. */
  checkpointService: { autoStart: boolean; idleMinutes: number };
}

const MB = 1024 * 1024;

/** Every file-checkpoint default, once (the keys are those of agentRewind.fileCheckpointing.*). */
export const FILE_CHECKPOINT_DEFAULTS = {
  enabled: true,
  storeLocation: '',
  include: [] as string[],
  exclude: ['**/.git/**', '**/node_modules/**'],
  maxFileSizeMB: 10,
  storeSizeCapMB: 2048,
} as const;

/** The defaults of agentRewind.checkpointService.autoStart / idleMinutes (package.json declares the same). */
export const SERVICE_DEFAULTS = { autoStart: true, idleMinutes: 30 } as const;

/** Whether the environment turns the service's auto-start off (either variable set to off, 0 or false). */
export function autoStartOffByEnv(env: NodeJS.ProcessEnv): boolean {
  const off = (v: string | undefined) => v !== undefined && /^(off|0|false|no)$/i.test(v.trim());
  return off(env.AGENT_REWIND_SERVICE_AUTOSTART) || off(env.AGENT_REWIND_SERVICE);
}

export const DEFAULT_EXCLUDES: string[] = [...FILE_CHECKPOINT_DEFAULTS.exclude];

/** The scan switches from the environment (unset: the defaults). */
export function scanTuningFrom(env: NodeJS.ProcessEnv): ScanTuning {
  const after = Number(env.AGENT_REWIND_HASH_THREAD_AFTER);
  return {
    hashThreadAfter:
      env.AGENT_REWIND_HASH_THREAD === '0' ? Infinity : env.AGENT_REWIND_HASH_THREAD_AFTER !== undefined && Number.isFinite(after) && after >= 0 ? after : 2000,
  };
}

/** The options of a workspace folder's FileCheckpointer, the same for the extension and the CLI. */
export function fileCheckpointerOptions(settings: EngineSettings, workspaceRoot: string): FileCheckpointerOptions {
  const fc = settings.fileCheckpointing;
  const storeDir = fc.storeDir ? resolve(fc.storeDir, basename(defaultStoreDir(settings.home, workspaceRoot))) : undefined;
  return {
    workspaceRoot,
    home: settings.home,
    ...(storeDir ? { storeDir } : {}),
    maxFileSize: fc.maxFileSizeBytes,
    ...(fc.include.length ? { include: fc.include } : {}),
    exclude: fc.exclude,
    // 0 means "no cap" in the settings
    sizeCapBytes: fc.storeSizeCapBytes > 0 ? fc.storeSizeCapBytes : Number.MAX_SAFE_INTEGER,
    tuning: settings.tuning,
  };
}

/** `get(key)` returns the raw value of `agentRewind.<key>` (undefined when unset). `switchKeys`: the boolean settings to read into `switches` (the agents' enabledSetting keys). */
export function parseSettings(get: (key: string) => unknown, env: NodeJS.ProcessEnv = process.env, switchKeys: readonly string[] = []): EngineSettings {
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
  const d = FILE_CHECKPOINT_DEFAULTS;
  const home = resolveHome(expandTilde(str('home')), env);
  const storeDir = str('fileCheckpointing.storeLocation');
  return {
    home,
    fileCheckpointing: {
      enabled: bool('fileCheckpointing.enabled', d.enabled),
      ...(storeDir ? { storeDir: absoluteFrom(home, expandTilde(storeDir)!) } : {}),
      include: list('fileCheckpointing.include', [...d.include]),
      exclude: list('fileCheckpointing.exclude', [...d.exclude]),
      maxFileSizeBytes: Math.round(num('fileCheckpointing.maxFileSizeMB', d.maxFileSizeMB) * MB),
      storeSizeCapBytes: Math.round(num('fileCheckpointing.storeSizeCapMB', d.storeSizeCapMB) * MB),
    },
    sessionFolders: list('sessionFolders', []).map((f) => absoluteFrom(home, expandTilde(f)!)),
    tuning: scanTuningFrom(env),
    switches: Object.fromEntries(switchKeys.flatMap((k) => (typeof get(k) === 'boolean' ? [[k, get(k) as boolean]] : []))),
    agentModules: list('agentModules', []).map((f) => absoluteFrom(home, expandTilde(f)!)),
    checkpointService: {
      autoStart: bool('checkpointService.autoStart', SERVICE_DEFAULTS.autoStart) && !autoStartOffByEnv(env),
      idleMinutes: num('checkpointService.idleMinutes', SERVICE_DEFAULTS.idleMinutes),
    },
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
