// Gemini CLI's BeforeAgent hook on the hot path, as Gemini runs it: the launcher script (`<launcher> hook gemini`, the
// hook JSON on stdin, $GEMINI_PROJECT_DIR set) with `agent-rewind serve` running (sh + perl to its hook endpoint, its
// tree and watcher warm), snapshotting a 50,000-file workspace after 10 files changed and recording the prompt (the
// transcript's size and the prompt's text) — against a shadow git repository's `git add . && git commit` of the same
// change, right after, in the same run. Target (issue 25): hook p50 ≤ 0.10× git add+commit.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPromptRecords } from '../src/core/sources/prompt-records';
import {
  awaitHookAnswers,
  bundleCliWithLauncher,
  copyWorkspaceWithShadowGit,
  editRandomFiles,
  fmtMs,
  gitCheckpoint,
  hookLogOf,
  startService,
  takeInstallBaseline,
  timedHook,
  waitForCompaction,
  type RunningService,
} from './bench-tools';
import { median, percentile, type BenchModule, type BenchSection } from './types';
import { generateWorkspace } from './workspace-generator';

const fmt = fmtMs;

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const fileCount = quick ? 2000 : 50_000;
  const rounds = quick ? 5 : 20;
  const gen = await generateWorkspace(fileCount);
  const base = await mkdtemp(join(tmpdir(), 'arw-gemini-hook-bench-'));
  let service: RunningService | undefined;
  try {
    const { ws, home, gitDir } = await copyWorkspaceWithShadowGit(gen, base);
    const { cli, launcher } = await bundleCliWithLauncher(base);
    const env = { ...process.env, AGENT_REWIND_HOME: home, GEMINI_PROJECT_DIR: ws };

    // a transcript of a realistic size, as Gemini passes its path
    const sessionId = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
    const chats = join(base, 'ghome', '.gemini', 'tmp', 'ws', 'chats');
    mkdirSync(chats, { recursive: true });
    const transcript = join(chats, `session-2026-11-27T06-42-${sessionId.slice(0, 8)}.jsonl`);
    writeFileSync(transcript, '{"$set":{"lastUpdated":"2026-11-27T06:42:00.000Z"}}\n'.repeat(20_000));
    const hook = () =>
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

    await gitCheckpoint(gitDir, ws, 'first');
    const baseline = await takeInstallBaseline(cli, ws, home, 'gemini', env);
    service = await startService(cli, ws, env);
    const first = hook(); // the service's first snapshot of the folder (its tree built): reported, not part of the target
    hook();
    // a compaction the service may still start in the background after its first snapshots: waited for, untimed, as
    // gitCheckpoint waits for git's automatic gc
    await waitForCompaction(home);
    const ours: number[] = [];
    const theirs: number[] = [];
    const loads: number[] = [];
    for (let r = 0; r < rounds; r++) {
      await editRandomFiles(ws, gen.files, 10, 9500 + r, `gemini edit ${r}`);
      loads.push(loadavg()[0]!);
      ours.push(hook());
      theirs.push(await gitCheckpoint(gitDir, ws, `round ${r}`));
    }
    const answered = await awaitHookAnswers(service, 'gemini', rounds + 2);
    const inService = answered.slice(-rounds);
    if (answered.length !== rounds + 2)
      throw new Error(`expected the service to answer all ${rounds + 2} hooks, it answered ${answered.length}:\n${service.log()}`);
    await service.stop();

    const logged = hookLogOf(home, 'gemini-hooks.log');
    if (logged) throw new Error(`the hook logged problems:\n${logged}`);
    const records = readPromptRecords(home, 'gemini', sessionId);
    if (records.length !== rounds + 2 || records.some((r) => r.transcriptSize === 0))
      throw new Error(`expected ${rounds + 2} prompt records with the transcript's size`);

    const p50 = median(ours);
    const p95 = percentile(ours, 95);
    const g50 = median(theirs);
    const g95 = percentile(theirs, 95);
    const ok = p50 <= 0.1 * g50;
    const markdown = [
      `Workspace: ${fileCount.toLocaleString('en-US')} files (${(gen.totalBytes / 1e6).toFixed(0)} MB), 10 files changed before each prompt, ${rounds} prompts. Ours: the \`agent-rewind\` launcher run as Gemini CLI runs a hook (\`<launcher> hook gemini\`, BeforeAgent's stdin JSON, \`$GEMINI_PROJECT_DIR\`) with \`agent-rewind serve --workspace\` running; each answered by the service's hook endpoint (its trace log), each with its prompt record. Reference: \`git add . && git commit\` of a shadow repository on the same tree, right after each hook. 1-minute load average when each sample started: ${median(loads).toFixed(2)} (median; ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}; 2 cores shared).`,
      '',
      '| | agent-rewind hook | shadow git add+commit | ratio | target |',
      '|---|---|---|---|---|',
      `| BeforeAgent with the service, p50 | ${fmt(p50)} | ${fmt(g50)} | ${(p50 / g50).toFixed(3)}× | ≤ 0.10× ${ok ? '✅' : '❌'} |`,
      `| BeforeAgent with the service, p95 | ${fmt(p95)} | ${fmt(g95)} | ${(p95 / g95).toFixed(3)}× | |`,
      `| of which inside the service, p50 / p95 | ${fmt(median(inService))} / ${fmt(percentile(inService, 95))} | | | |`,
      `| set-up: the baseline snapshot \`hooks install\` takes (every file hashed, in-process) | ${fmt(baseline)} | | | |`,
      `| set-up: the first hook through the service (its tree of the folder built) | ${fmt(first)} | | | |`,
    ].join('\n');
    return { title: 'Gemini CLI hook (BeforeAgent snapshot) with the service vs a shadow git commit', markdown, ok };
  } catch (err) {
    // said before the clean-up, whose own error would hide it
    console.error(err);
    throw err;
  } finally {
    await service?.stop();
    await rm(base, { recursive: true, force: true, maxRetries: 5 });
  }
}

export default { run } satisfies BenchModule;
