// Which folders hold a workspace's sessions: ours (<home>/sessions/--<cwd>--), pi's and oh-my-pi's (same layout
// under ~/.pi/agent and ~/.omp/agent), and any extra folders the user configured. The tree lists them and the
// extension watches them.
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { sessionDirFor, sessionsRoot } from '../../session/paths';
import type { SessionSource } from '../../session/types';
import type { EngineSettings } from '../../settings/settings';
import { INCLUDE_PI_SESSIONS } from './include-setting';

export interface SessionFolder {
  path: string;
  source: SessionSource;
}

export function piSessionsRoot(userHome = homedir()): string {
  return join(userHome, '.pi', 'agent', 'sessions');
}

export function ompSessionsRoot(userHome = homedir()): string {
  return join(userHome, '.omp', 'agent', 'sessions');
}

export function sessionFoldersFor(settings: EngineSettings, workspaceRoots: readonly string[], userHome = homedir()): SessionFolder[] {
  const folders: SessionFolder[] = [];
  const seen = new Set<string>();
  const add = (path: string, source: SessionSource) => {
    const p = resolve(path);
    if (seen.has(p)) return;
    seen.add(p);
    folders.push({ path: p, source });
  };
  for (let root of workspaceRoots) {
    root = resolve(root);
    add(sessionDirFor(sessionsRoot(settings.home), root), 'agent-rewind');
    if (settings.switches[INCLUDE_PI_SESSIONS] !== false) {
      add(sessionDirFor(piSessionsRoot(userHome), root), 'pi');
      add(sessionDirFor(ompSessionsRoot(userHome), root), 'omp');
    }
  }
  for (const extra of settings.sessionFolders) add(extra, sourceOfPath(extra, userHome));
  return folders;
}

/** Which tool wrote a session file, from where it lives. */
export function sourceOfPath(file: string, userHome = homedir()): SessionSource {
  const p = resolve(file);
  if (p.startsWith(piSessionsRoot(userHome) + sep) || p === piSessionsRoot(userHome)) return 'pi';
  if (p.startsWith(ompSessionsRoot(userHome) + sep) || p === ompSessionsRoot(userHome)) return 'omp';
  return 'agent-rewind';
}
