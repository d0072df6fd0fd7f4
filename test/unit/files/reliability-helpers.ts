// Shared by the reliability-*.test.ts files: an exact fingerprint that also covers folder modes, chattr, and a
// small child process runner (for things that could block the whole process, or race it).
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Every path under `root` with its type, mode (folders too) and content or link target, sorted. */
export async function exactFingerprint(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const name of (await readdir(join(root, rel))).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const p = join(root, r);
      const st = await lstat(p);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out.push(`${r} link -> ${await readlink(p)}`);
      else if (st.isDirectory()) {
        out.push(`${r}/ dir ${mode}`);
        await walk(r);
      } else
        out.push(
          `${r} file ${mode} ${createHash('sha256')
            .update(await readFile(p))
            .digest('hex')
            .slice(0, 16)}`,
        );
    }
  };
  await walk('');
  return out;
}

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
