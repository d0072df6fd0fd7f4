// Where the CLI (and Claude Code's hooks) take their file-checkpoint settings from, so that they snapshot exactly what
// the extension snapshots on the same store: <home>/config.json when it exists, else the agentRewind.* keys of the user's VS Code settings.json
// (desktop, VS Code Server, code-server), else the defaults the extension has too. Kept small (fs, os, path only):
// --help names the source, and --help must stay cheap.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The files looked at, in order; the first that exists is used. */
export function settingsCandidates(home: string, userHome: string = homedir()): string[] {
  return [
    join(home, 'config.json'),
    join(userHome, '.config', 'Code', 'User', 'settings.json'),
    join(userHome, 'Library', 'Application Support', 'Code', 'User', 'settings.json'),
    join(userHome, '.vscode-server', 'data', 'Machine', 'settings.json'),
    join(userHome, '.local', 'share', 'code-server', 'User', 'settings.json'),
  ];
}

export function settingsSource(home: string, userHome?: string): string | undefined {
  return settingsCandidates(home, userHome).find((f) => existsSync(f));
}
