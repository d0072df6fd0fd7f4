// The folders an agent test works in and what it compares: one temporary folder holding the workspace the agent
// changes and agent-rewind's home (kept after the run with AGENT_REWIND_KEEP_E2E, to look at), and the state of a
// folder as every file's and folder's mode and content hash, so that a rewind can be held to "exactly as it was".
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface AgentTestFolders {
  /** The temporary folder everything of the test is under. */
  dir: string;
  /** The workspace (created, empty). */
  ws: string;
  /** AGENT_REWIND_HOME (created by agent-rewind when it first writes). */
  arHome: string;
}

export function agentTestFolders(prefix: string): AgentTestFolders {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const ws = join(dir, 'ws');
  mkdirSync(ws);
  return { dir, ws, arHome: join(dir, 'ar-home') };
}

/** Removes the test's folder, unless AGENT_REWIND_KEEP_E2E (or AGENT_REWIND_KEEP_TMP, the name the Claude Code tests
 *  had) asks to keep it. Retried for a while: an agent's detached process (a hook it does not wait for, or a
 *  checkpoint service stopping when idle) may still be writing its last file in there. */
export function removeAgentTestFolder(dir: string | undefined): void {
  if (dir && !process.env.AGENT_REWIND_KEEP_E2E && !process.env.AGENT_REWIND_KEEP_TMP)
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}

/** Every file and folder under `dir` (relative path → mode and content hash; a folder → its mode). */
export function stateOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const stack = [''];
  while (stack.length) {
    const rel = stack.pop()!;
    for (const name of readdirSync(join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, r));
      if (st.isDirectory()) {
        out[r + '/'] = `dir ${(st.mode & 0o777).toString(8)}`;
        stack.push(r);
      } else
        out[r] = `${(st.mode & 0o777).toString(8)} ${createHash('sha256')
          .update(readFileSync(join(dir, r)))
          .digest('hex')
          .slice(0, 16)}`;
    }
  }
  return Object.fromEntries(Object.entries(out).sort());
}
