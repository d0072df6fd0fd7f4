// Flow 8, an agent that plugs in (issue 21): the test tree's toy agent (test/support/toy-agent: sessions as rows of
// SQLite databases, hooks as a script), bundled into one module and loaded through the machine setting
// agentRewind.agentModules; no line of production code names it. In real VS Code: "Set Up Agent Checkpoints…" offers
// it and installs its hook script with the extension's launcher; the toy agent then runs that script at each prompt
// (an environment without $AGENT_REWIND_AGENT_MODULES, as an agent's own process has), which snapshots the workspace.
// Its session is listed in the Sessions tree with the toy's icon and label, found by Search, its transcript opened;
// "Rewind to here" on the second prompt previews the files as that prompt's hook snapshot has them, Confirm restores
// them and writes a toy fork, palette Undo puts the files back. Compare then sets the session against its fork.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { writeToySession, type ToyMessage } from '../support/toy-agent/agent';
import { clickEntryAction, entrySelector, previewFileRows, previewFrame, sessionRow } from './support/agent-rewind';
import { readTree } from './support/disk';
import { e2eEnv } from './support/env';
import { bundleToyAgent } from './support/toy-agent';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { clearNotifications, editorTab, openAgentRewind, pickQuickItem, runCommand, waitForNotification, webviewFrame } from './support/workbench';

const TITLE = 'Toy session: a zebra file';
const SESSION = 'toy-e2e-1';

describe('flow 8: an agent loaded from agentRewind.agentModules (the toy agent)', () => {
  let vs: VsCode | undefined;
  let toyHome = '';

  before(async () => {
    mkdirSync(e2eEnv().runDir, { recursive: true });
    const dir = mkdtempSync(join(e2eEnv().runDir, 'toy-agent-'));
    toyHome = join(dir, 'toy-home');
    mkdirSync(toyHome, { recursive: true });
    const toyModule = bundleToyAgent(e2eEnv().repo, join(dir, 'module'));
    vs = await openVsCode({
      name: 'flow8',
      prepare: ({ workspace }) => writeFileSync(join(workspace, 'README.md'), '# toy\n'),
      machineSettings: { 'agentRewind.agentModules': [toyModule] },
      // the toy agent's own data folder: the extension's toy reader finds its sessions there
      env: { TOY_AGENT_HOME: toyHome },
    });
  });
  after(async () => {
    await vs?.close();
  });

  /** The toy agent at work: the session's rows so far, and its hook script run for the prompt just sent. */
  const prompt = async (workspace: string, home: string, messages: ToyMessage[]) => {
    await writeToySession(toyHome, { id: SESSION, cwd: workspace, title: TITLE, created: messages[0]!.at, messages });
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_REWIND_HOME: home };
    delete env.AGENT_REWIND_AGENT_MODULES; // an agent's process knows nothing of agent-rewind's settings
    const run = spawnSync('sh', [join(workspace, '.toy', 'hook.sh')], {
      input: JSON.stringify({ session_id: SESSION, message_id: messages.at(-1)!.id, cwd: workspace }),
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, `the hook script: ${run.stderr}`);
    for (const log of ['toy-hooks.log', 'hooks.log']) {
      const file = join(home, 'logs', log);
      assert.ok(!existsSync(file), `no hook problem logged: ${existsSync(file) ? readFileSync(file, 'utf8') : ''}`);
    }
  };

  it('flow 8: hooks set up by the extension, listed with its icon, searched, transcript, Rewind to here previews and restores, Undo, Compare with its fork', () =>
    withArtifacts(
      () => vs,
      'flow 8 toy agent',
      async () => {
        const { page, workspace, home } = vs!;
        const at = (s: number) => new Date(Date.UTC(2026, 10, 27, 9, 0, s)).toISOString();

        // Set Up Agent Checkpoints…: the loaded agent is offered beside the built-in ones, its hooks go to this folder
        await openAgentRewind(page); // the extension's contributions are there once its view is
        await clearNotifications(page);
        await runCommand(page, 'Agent Rewind: Set Up Agent Checkpoints (install hooks)…');
        const agents = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
        await agents.filter({ hasText: 'Toy Agent' }).first().waitFor({ state: 'visible', timeout: 15_000 });
        assert.ok((await agents.filter({ hasText: 'Claude Code' }).count()) > 0, 'the built-in agents are listed too');
        await pickQuickItem(page, 'Toy Agent');
        await pickQuickItem(page, 'This workspace');
        await waitForNotification(page, /Toy Agent now snapshots the workspace at every prompt/, 120_000);
        const script = readFileSync(join(workspace, '.toy', 'hook.sh'), 'utf8');
        assert.match(script, /'hook' 'toy'/);
        assert.doesNotMatch(script, new RegExp(join(home, 'bin')), "the extension's own launcher, not one the CLI wrote");
        await clearNotifications(page);

        // the toy agent works: two prompts, each snapshotted by the hook script when it is sent
        const u1: ToyMessage = { id: 'u1', parentId: null, role: 'user', text: 'write the first line', at: at(1) };
        const a1: ToyMessage = { id: 'a1', parentId: 'u1', role: 'assistant', text: 'Wrote a.txt.', at: at(2) };
        const u2: ToyMessage = { id: 'u2', parentId: 'a1', role: 'user', text: 'make it the zebra line and add b.txt', at: at(3) };
        const a2: ToyMessage = { id: 'a2', parentId: 'u2', role: 'assistant', text: 'Zebra line written, b.txt added.', at: at(4) };
        writeFileSync(join(workspace, 'a.txt'), 'first\n');
        await prompt(workspace, home, [u1]);
        writeFileSync(join(workspace, 'a.txt'), 'second\n');
        writeFileSync(join(workspace, 'b.txt'), 'b\n');
        await prompt(workspace, home, [u1, a1, u2]);
        const atU2 = readTree(workspace);
        writeFileSync(join(workspace, 'a.txt'), 'zebra\n');
        writeFileSync(join(workspace, 'c.txt'), 'c\n');
        await writeToySession(toyHome, { id: SESSION, cwd: workspace, title: TITLE, created: at(1), messages: [u1, a1, u2, a2] });
        const final = readTree(workspace);

        // listed with the toy's own icon and label
        const row = await sessionRow(page, TITLE);
        assert.match((await row.textContent()) ?? '', /Toy Agent/);
        assert.equal(await row.locator('.codicon-beaker').count(), 1, "the toy's icon");
        await keyMomentScreenshot(vs!, 'flow8-toy-listed');

        // found by Search: the hit opens the transcript at the message
        await runCommand(page, 'Agent Rewind: Search Sessions');
        await page.locator('.quick-input-widget .quick-input-box input').fill('zebra');
        await pickQuickItem(page, /make it the zebra line/);
        await editorTab(page, `Transcript: ${TITLE}`).waitFor({ state: 'visible', timeout: 30_000 });
        const transcript = await webviewFrame(page, entrySelector('u2'), 30_000);
        assert.equal(await transcript.locator(entrySelector('u2')).getAttribute('data-kind'), 'user');
        assert.match((await transcript.locator('body').textContent()) ?? '', /Toy Agent/);

        // Rewind to here on the second prompt: the files as its hook snapshot has them, and a new toy session
        await clickEntryAction(page, 'u2', 'rewind-to-here');
        const preview = await previewFrame(page, '[data-testid="file-row"]');
        assert.deepEqual(
          (await previewFileRows(preview)).map((r) => r.path),
          ['a.txt', 'c.txt'],
        );
        assert.match((await preview.locator('body').textContent()) ?? '', /new Toy Agent session/);
        assert.deepEqual(readTree(workspace), final, 'the preview changed nothing');
        await keyMomentScreenshot(vs!, 'flow8-toy-preview');
        await preview.locator('input[name="mode"][value="all"]').first().check();
        await preview.locator('[data-action="confirm"]').first().click();
        // the conversation continues in a new toy session (however the toy stores it), the files are rewound
        await waitForNotification(page, /Rewound the conversation into a new Toy Agent session \([^)]+\) and 2 files/);
        await waitFor('the files to be rewound', () => isDeepStrictEqual(readTree(workspace), atU2), 15_000).catch(() => {});
        assert.deepEqual(readTree(workspace), atU2, 'the workspace is as it was when the second prompt was sent');

        // palette Undo: the files come back
        await clearNotifications(page);
        await runCommand(page, 'Agent Rewind: Undo Last Rewind');
        await waitForNotification(page, /Undid the last rewind/);
        await waitFor('Undo to put the files back', () => isDeepStrictEqual(readTree(workspace), final), 15_000).catch(() => {});
        assert.deepEqual(readTree(workspace), final, 'Undo put back the files the rewind changed');
        await clearNotifications(page);

        // Compare: the session has one branch, its fork is offered as B (issue 23 item 4)
        await clickInTranscriptToolbar(page, 'compare-branches');
        await pickQuickItem(page, TITLE);
        const compare = await webviewFrame(page, '[data-testid="side-session"]', 30_000);
        assert.equal(await compare.locator('[data-testid="side-session"]').count(), 2, 'each column names its session');
        assert.equal(await compare.locator('[data-testid="divergence-message"]').getAttribute('data-entry-id'), 'a1', 'they part after the reply both have');
        assert.equal(await compare.locator('[data-testid="column-a"] [data-testid="message"]').count(), 2);
        await keyMomentScreenshot(vs!, 'flow8-toy-compare-fork');
        rmSync(join(workspace, '.toy'), { recursive: true, force: true });
      },
    ));
});

/** The transcript's toolbar button for an action (its compare button asks for the other side). */
async function clickInTranscriptToolbar(page: VsCode['page'], action: string): Promise<void> {
  const frame = await webviewFrame(page, `[data-action="${action}"]`, 30_000);
  await frame.locator(`[data-action="${action}"]`).first().click();
}
