// Shared set-up for the catalog tests: a temp home plus a copy of the real pi fixtures (they are read-only and must
// never be touched), and a fingerprint of every file to prove the catalog wrote nothing next to the sessions.
import { createHash } from 'node:crypto';
import { chmod, cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const PI_FIXTURES = resolve(__dirname, '../../../../shared/fixtures/pi');

export interface CatalogFixture {
  dir: string;
  home: string;
  /** The copied pi sessions (one folder). */
  sessions: string;
  cleanup(): Promise<void>;
}

export async function catalogFixture(): Promise<CatalogFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'ar-catalog-'));
  const sessions = join(dir, 'pi-sessions');
  await cp(PI_FIXTURES, sessions, { recursive: true });
  // the originals are read-only; the copies are edited by some tests
  for (const name of await readdir(sessions)) await chmod(join(sessions, name), 0o644);
  return { dir, home: join(dir, 'home'), sessions, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** name → sha256 of every file in a folder. */
export async function fingerprint(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(folder)).sort())
    out[name] = createHash('sha256')
      .update(await readFile(join(folder, name)))
      .digest('hex');
  return out;
}
