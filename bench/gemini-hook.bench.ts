// Gemini CLI's BeforeAgent hook on the hot path, as Gemini runs it: the launcher script (`<launcher> hook gemini`, the
// hook JSON on stdin, $GEMINI_PROJECT_DIR set) with `agent-rewind serve` running (sh + perl to its hook endpoint, its
// tree and watcher warm), snapshotting a 50,000-file workspace after 10 files changed and recording the prompt (the
// transcript's size and the prompt's text) — against a shadow git repository's `git add . && git commit` of the same
// change, right after, in the same run. Target (issue 25): hook p50 ≤ 0.10× git add+commit.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPromptRecords } from '../src/core/sources/prompt-records';
import { bundleCliWithLauncher, copyWorkspaceWithShadowGit, hookLogOf, promptStartsThroughService, promptStartTable, timedHook } from './bench-tools';
import type { BenchModule, BenchSection } from './types';
import { generateWorkspace } from './workspace-generator';

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const fileCount = quick ? 2000 : 50_000;
  const rounds = quick ? 5 : 20;
  const gen = await generateWorkspace(fileCount);
  const base = await mkdtemp(join(tmpdir(), 'arw-gemini-hook-bench-'));
  try {
    const folder = await copyWorkspaceWithShadowGit(gen, base);
    const { ws, home } = folder;
    const { cli, launcher } = await bundleCliWithLauncher(base);
    const env = { ...process.env, AGENT_REWIND_HOME: home, GEMINI_PROJECT_DIR: ws };

    // a transcript of a realistic size, as Gemini passes its path
    const sessionId = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
    const chats = join(base, 'ghome', '.gemini', 'tmp', 'ws', 'chats');
    mkdirSync(chats, { recursive: true });
    const transcript = join(chats, `session-2026-11-27T06-42-${sessionId.slice(0, 8)}.jsonl`);
    writeFileSync(transcript, '{"$set":{"lastUpdated":"2026-11-27T06:42:00.000Z"}}\n'.repeat(20_000));
    const prompt = () =>
      timedHook(
        [launcher, 'hook', 'gemini'],
        JSON.stringify({
          session_id: sessionId,
          transcript_path: transcript,
          cwd: ws,
          hook_event_name: 'BeforeAgent',
          timestamp: new Date().toISOString(),
          prompt: 'Refactor the snapshot code so that the store is opened once, and add a test for it.',
        }),
        { cwd: ws, env },
      );
    const series = await promptStartsThroughService({ agent: 'gemini', gen, folder, cli, env, rounds, seed: 9500, prompt });

    const logged = hookLogOf(home, 'gemini-hooks.log');
    if (logged) throw new Error(`the hook logged problems:\n${logged}`);
    const records = readPromptRecords(home, 'gemini', sessionId);
    if (records.length !== rounds + 2 || records.some((r) => r.transcriptSize === 0))
      throw new Error(`expected ${rounds + 2} prompt records with the transcript's size`);

    const table = promptStartTable('BeforeAgent', series);
    const markdown = [
      `Workspace: ${fileCount.toLocaleString('en-US')} files (${(gen.totalBytes / 1e6).toFixed(0)} MB), 10 files changed before each prompt, ${rounds} prompts. Ours: the \`agent-rewind\` launcher run as Gemini CLI runs a hook (\`<launcher> hook gemini\`, BeforeAgent's stdin JSON, \`$GEMINI_PROJECT_DIR\`) with \`agent-rewind serve --workspace\` running; each answered by the service's hook endpoint (its trace log), each with its prompt record. Reference: \`git add . && git commit\` of a shadow repository on the same tree, right after each hook.`,
      table.markdown,
    ].join(' ');
    return { title: 'Gemini CLI hook (BeforeAgent snapshot) with the service vs a shadow git commit', markdown, ok: table.ok };
  } catch (err) {
    // said before the clean-up, whose own error would hide it
    console.error(err);
    throw err;
  } finally {
    await rm(base, { recursive: true, force: true, maxRetries: 5 });
  }
}

export default { run } satisfies BenchModule;
