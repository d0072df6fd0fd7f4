import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The real pi session files shipped with the spec (read-only). */
export const PI_FIXTURES = resolve(__dirname, '../../../../shared/fixtures/pi');
export const FIXTURE_NAMES = [
  'before-compaction.v1.jsonl',
  'session-with-branch-summary.v3.jsonl',
  'session-with-compaction.v3.jsonl',
  'simple-session.v3.jsonl',
] as const;

export function tempDir(t: { after(fn: () => void): void }, prefix = 'ar-session-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A writable copy of a fixture in dir. */
export function copyFixture(dir: string, name: string): string {
  const to = join(dir, name);
  copyFileSync(join(PI_FIXTURES, name), to);
  return to;
}
