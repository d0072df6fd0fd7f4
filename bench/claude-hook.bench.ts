// The Claude Code UserPromptSubmit hook as Claude Code runs it: a fresh `node cli.js hook claude` process fed the hook's
// JSON on stdin, snapshotting a 50,000-file workspace after 10 files changed — against a shadow git repository's
// `git add . && git commit` of the same change, in the same run. Target: hook p95 ≤ 1 s (Claude Code waits for it).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointer } from '../src/core/files/file-checkpointer';
import { bundleCli, copyWorkspaceWithShadowGit, editRandomFiles, fmtMs, gitCheckpoint, hookLogOf, now, timedHook } from './bench-tools';
import { median, percentile, type BenchSection } from './types';
import { generateWorkspace } from './workspace-generator';

const fmt = fmtMs;

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const fileCount = quick ? 2000 : 50_000;
  const rounds = quick ? 5 : 12;
  const gen = await generateWorkspace(fileCount);
  const base = await mkdtemp(join(tmpdir(), 'arw-cc-hook-bench-'));
  try {
    const { ws, home, gitDir } = await copyWorkspaceWithShadowGit(gen, base);

    // the CLI bundled as it ships in dist/
    const cli = join(base, 'cli.js');
    await bundleCli(cli);

    // a transcript of a realistic size, as Claude Code passes its path
    const sessionId = '0b4c6f0e-8a53-4d6f-9a63-2f3f1c0d7e11';
    const transcript = join(base, 'config', 'projects', 'ws', `${sessionId}.jsonl`);
    execFileSync('mkdir', ['-p', join(base, 'config', 'projects', 'ws')]);
    await writeFile(transcript, '{"type":"user"}\n'.repeat(10_000));
    const hook = (promptId: string) =>
      timedHook(
        [process.execPath, cli, 'hook', 'claude'],
        JSON.stringify({
          session_id: sessionId,
          transcript_path: transcript,
          cwd: ws,
          prompt_id: promptId,
          permission_mode: 'bypassPermissions',
          hook_event_name: 'UserPromptSubmit',
          prompt: 'Refactor the snapshot code so that the store is opened once, and add a test for it.',
        }),
        { cwd: ws, env: { ...process.env, AGENT_REWIND_HOME: home, CLAUDE_PROJECT_DIR: ws } },
      );

    // first snapshot (every file hashed) and git's first commit: reported, not part of the target
    const gitFirst = await gitCheckpoint(gitDir, ws, 'first');
    execFileSync('sync');
    const hookFirst = hook('prompt-first');

    const ours: number[] = [];
    const theirs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      await editRandomFiles(ws, gen.files, 10, 7000 + r, `claude edit ${r}`);
      ours.push(hook(`prompt-${r}`));
      theirs.push(await gitCheckpoint(gitDir, ws, `round ${r}`));
    }
    const floor: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t = now();
      spawnSync(process.execPath, ['-e', '0']);
      floor.push(now() - t);
    }

    // every run snapshotted, nothing logged
    const logged = hookLogOf(home, 'claude-hooks.log');
    if (logged) throw new Error(`the hook logged problems:\n${logged}`);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    const snaps = await fc.listSnapshots(sessionId);
    await fc.dispose();
    if (snaps.length !== rounds + 1) throw new Error(`expected ${rounds + 1} snapshots, found ${snaps.length}`);

    const p50 = median(ours);
    const p95 = percentile(ours, 95);
    const g50 = median(theirs);
    const g95 = percentile(theirs, 95);
    const ok = p95 <= 1000;
    const markdown = [
      `Workspace: ${fileCount.toLocaleString('en-US')} files (${(gen.totalBytes / 1e6).toFixed(0)} MB), 10 files changed before each prompt, ${rounds} prompts. Ours: a fresh \`node cli.js hook claude\` process per prompt (stdin JSON as Claude Code sends it, persisted stat cache, no watcher). Reference: \`git add . && git commit\` of a shadow repository on the same tree, right after.`,
      '',
      '| | agent-rewind hook | shadow git add+commit | ratio | target |',
      '|---|---|---|---|---|',
      `| UserPromptSubmit, p50 | ${fmt(p50)} | ${fmt(g50)} | ${(p50 / g50).toFixed(2)}× | |`,
      `| UserPromptSubmit, p95 | ${fmt(p95)} | ${fmt(g95)} | ${(p95 / g95).toFixed(2)}× | ≤ 1 s ${ok ? '✅' : '❌'} |`,
      `| first snapshot of the folder (every file hashed; \`hooks install\` takes it, not a prompt) | ${fmt(hookFirst)} | ${fmt(gitFirst)} | ${(hookFirst / gitFirst).toFixed(2)}× | |`,
      `| floor: \`node -e 0\`, p50 | ${fmt(median(floor))} | | | |`,
    ].join('\n');
    return { title: 'Claude Code hook (UserPromptSubmit snapshot) vs a shadow git commit', markdown, ok };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
