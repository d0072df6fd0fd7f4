// Shared by the reliability-*.test.ts files: an exact fingerprint that also covers folder modes, chattr, and a
// small child process runner (for things that could block the whole process, or race it).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fingerprint } from './helpers';

/** Every path under `root` with its type, mode (folders too) and content or link target, sorted. */
export const exactFingerprint = (root: string): Promise<string[]> => fingerprint(root, { folderModes: true });

export function chattr(flag: '+i' | '-i', path: string): void {
  execFileSync('chattr', [flag, path]);
}

/** Whether chattr +i works here (root on ext4/xfs/btrfs; not on tmpfs or overlay). */
export function chattrWorks(probeDir: string): boolean {
  try {
    execFileSync('chattr', ['+i', probeDir], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', probeDir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Where src/core/files is, for child scripts. */
export const FILES_SRC = join(__dirname, '../../../src/core/files');

/** Runs a TypeScript file (through tsx) in a child process with a time limit; it prints its result. */
export function runTs(script: string, args: string[], timeoutMs: number): { stdout: string; stderr: string; timedOut: boolean; status: number | null } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { timeout: timeoutMs, encoding: 'utf8', killSignal: 'SIGKILL' });
  return { stdout: r.stdout, stderr: r.stderr, timedOut: r.error !== undefined && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT', status: r.status };
}
