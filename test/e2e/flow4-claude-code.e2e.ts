// Flow 4, Claude Code: a session recorded by the REAL Claude Code CLI (offline, against the scripted fake Messages API,
// with agent-rewind's hooks installed through the built CLI) in the workspace before VS Code opens. In VS Code: the
// session is listed (labelled Claude Code), its transcript opens read-only, "Rewind to here" on the second prompt
// previews the files (Bash-made changes included) and a fork, Confirm restores exactly the workspace as it was when
// that prompt was sent and writes the fork, and the transcript Claude Code wrote is byte for byte what it was.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { startFakeAnthropic, type ScriptReply } from '../agents/support/fake-anthropic';
import { runClaude } from '../agents/support/claude';
import { clickEntryAction, entrySelector, openTranscriptFromSidebar, previewFileRows, previewFrame, sessionRow } from './support/agent-rewind';
import { readTree } from './support/disk';
import { e2eEnv } from './support/env';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { expandTreeRow, treeRowByLabel, waitForNotification, webviewFrame } from './support/workbench';

const PROMPTS = ['Set up the notes app', 'Rename the entry point and edit the config', 'Add a changelog'];

describe('flow 4: a Claude Code session', () => {
  let vs: VsCode | undefined;
  let transcript = '';
  let transcriptHash = '';
  let prompt2 = '';
  let atPrompt2: Record<string, string> = {};
  let final: Record<string, string> = {};
  const sessionId = randomUUID();

  before(async () => {
    // Claude Code's config folder (transcripts, file-history), shown to the extension through CLAUDE_CONFIG_DIR. It
    // lives in the run's folder, which scripts/e2e.mjs removes even when the run is interrupted.
    mkdirSync(e2eEnv().runDir, { recursive: true });
    const configDir = mkdtempSync(join(e2eEnv().runDir, 'claude-config-'));
    vs = await openVsCode({
      name: 'flow4',
      prepare: async ({ workspace, home }) => {
        const repo = e2eEnv().repo;
        const cli = (args: string[]) =>
          spawnSync(process.execPath, [join(repo, 'dist', 'cli.js'), ...args], {
            cwd: workspace,
            encoding: 'utf8',
            env: { ...process.env, AGENT_REWIND_HOME: home },
          });
        const installed = cli(['hooks', 'install', 'claude', '--cwd', workspace]);
        assert.equal(installed.status, 0, installed.stderr);
        const fake = await startFakeAnthropic();
        const bash = (command: string): ScriptReply => [{ tool_use: { name: 'Bash', input: { command, description: 'scripted' } } }];
        const write = (path: string, content: string): ScriptReply => [{ tool_use: { name: 'Write', input: { file_path: join(workspace, path), content } } }];
        const env = { AGENT_REWIND_HOME: home };
        try {
          const turn = async (prompt: string, replies: ScriptReply[], first: boolean) => {
            fake.push(...replies, [{ text: 'Done.' }]);
            const run = await runClaude({ cwd: workspace, configDir, baseUrl: fake.baseUrl, prompt, env, ...(first ? { sessionId } : { resume: sessionId }) });
            assert.equal(run.exitCode, 0, `${prompt}: ${run.stderr}`);
          };
          await turn(
            PROMPTS[0]!,
            [
              bash("mkdir -p src && printf 'port=3000\\n' > config.ini && printf 'main\\n' > src/main.ts && printf 'todo\\n' > notes.txt"),
              write('README.md', '# Notes\n'),
            ],
            true,
          );
          atPrompt2 = readTree(workspace);
          await turn(
            PROMPTS[1]!,
            [bash("mv src/main.ts src/index.ts && rm notes.txt && printf 'port=8080\\nhost=0.0.0.0\\n' > config.ini"), write('src/extra.ts', 'export {};\n')],
            false,
          );
          await turn(PROMPTS[2]!, [write('CHANGELOG.md', '## 1.0\n')], false);
          final = readTree(workspace);
        } finally {
          await fake.close();
        }
        const projects = join(configDir, 'projects');
        transcript = readdirSync(projects)
          .map((d) => join(projects, d, `${sessionId}.jsonl`))
          .find((f) => {
            try {
              return readFileSync(f).length > 0;
            } catch {
              return false;
            }
          })!;
        transcriptHash = createHash('sha256').update(readFileSync(transcript)).digest('hex');
        const lines = readFileSync(transcript, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
        prompt2 = lines.find((j) => j.type === 'user' && j.message?.content === PROMPTS[1])?.uuid;
        assert.ok(prompt2, 'the second prompt is in the transcript');
      },
      env: { CLAUDE_CONFIG_DIR: configDir },
    });
  });
  after(async () => {
    await vs?.close();
  });

  it('flow 4: listed, transcript, Rewind to here previews and restores the files Bash changed, a fork is written', () =>
    withArtifacts(
      () => vs,
      'flow 4 claude code',
      async () => {
        const { page, workspace } = vs!;
        assert.notDeepEqual(final, atPrompt2);
        // Listed under its first prompt, and its transcript shows the prompts.
        const frame = await openTranscriptFromSidebar(page, PROMPTS[0]!, prompt2);
        assert.equal(await frame.locator(entrySelector(prompt2)).getAttribute('data-kind'), 'user');
        assert.equal(await frame.locator(`${entrySelector(prompt2)} [data-action="fork"]`).count(), 0, 'a read-only session offers no fork');
        await keyMomentScreenshot(vs!, 'flow4-claude-transcript');

        await clickEntryAction(page, prompt2, 'rewind-to-here');
        const preview = await previewFrame(page, '[data-testid="file-row"]');
        const rows = (await previewFileRows(preview)).map((r) => r.path);
        assert.deepEqual(
          rows,
          ['config.ini', 'notes.txt', 'src/extra.ts', 'src/index.ts', 'src/main.ts', 'CHANGELOG.md'].sort((a, b) => a.localeCompare(b)),
        );
        assert.match((await preview.locator('body').textContent()) ?? '', /new Claude Code session/);
        assert.deepEqual(readTree(workspace), final, 'the preview changed nothing');
        await keyMomentScreenshot(vs!, 'flow4-claude-preview');

        const confirm = await webviewFrame(page, '[data-action="confirm"]');
        await confirm.locator('input[name="mode"][value="all"]').first().check();
        await confirm.locator('[data-action="confirm"]').first().click();
        await waitForNotification(page, /Rewound/);
        await waitFor('the files to be rewound', () => isDeepStrictEqual(readTree(workspace), atPrompt2), 15_000).catch(() => {});
        assert.deepEqual(readTree(workspace), atPrompt2, 'the workspace is exactly as it was when the second prompt was sent');
        assert.equal(createHash('sha256').update(readFileSync(transcript)).digest('hex'), transcriptHash, "Claude Code's transcript is untouched");
        const siblings = readdirSync(join(transcript, '..')).filter((n) => n.endsWith('.jsonl') && n !== `${sessionId}.jsonl`);
        assert.equal(siblings.length, 1, `one fork beside the transcript (${siblings.join(', ')})`);
        // the fork is listed under the original (its Forks), named as the fork it is, and the transcript shows its session again
        await expandTreeRow(await sessionRow(page, PROMPTS[0]!));
        const forkRow = treeRowByLabel(page, `Fork: ${PROMPTS[0]}`);
        await forkRow.waitFor({ state: 'visible', timeout: 30_000 });
        assert.match((await forkRow.textContent()) ?? '', /fork · /);
        await webviewFrame(page, entrySelector(prompt2), 30_000);
        await keyMomentScreenshot(vs!, 'flow4-claude-rewound');
      },
    ));
});
