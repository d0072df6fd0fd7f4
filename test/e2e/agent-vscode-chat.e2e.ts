// VS Code's own chat, for real (issue 24, acceptance 1): code-server 4.139.1 (VS Code 1.139, its built-in agent mode)
// installed into the cache folder with the Node it needs, a scripted language model from a small test extension
// (support/vschat.chattest-0.0.1) and agent-rewind's hooks installed by the CLI. Three requests edit files with the
// edit tools and change others with run_in_terminal (create, delete, move, a mode change). Then: the session is listed
// in the tree; `rewind-files` (CLI) and Rewind to here (UI) to the second request give back the workspace exactly as
// it was when that request was sent (every file's bytes and mode); undo puts it back; VS Code's session log and
// editing contents are byte for byte what they were (its editing state.json only in the live view of the files VS
// Code rewrites itself when files change on disk: a control change from outside shows VS Code doing it, and strace of
// the CLI and the extension host shows agent-rewind never opening those files for writing). Last, the preview's
// "Restore VS Code's checkpoint" runs VS Code's own Restore Checkpoint on the request. Run alone:
// `npm run test:vscode-chat` (not part of the default e2e run; the lag flows are agent-lag-vscode-chat-*.e2e.ts).
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { replayMutationLog } from '../../src/core/sources/vscode-chat/mutation-log';
import { clickEntryAction, openTranscriptFromSidebar, previewFrame, sessionRow } from './support/agent-rewind';
import { e2eEnv } from './support/env';
import { createFile, newScriptedChatRun, openScriptedChat, replaceInFile, runInTerminal, writeChatScript } from './support/scripted-chat';
import { keyMomentScreenshot, withArtifacts, type VsCode } from './support/vscode';
import { waitFor } from './support/wait';
import { attachTrace, callsUnder, findProcesses, traceCommand } from './support/write-trace';
import { clearNotifications, runCommand, waitForNotification, webviewFrame } from './support/workbench';

type Manifest = Record<string, [string, number]>;

/** Every file's sha256 and mode (our hook file and agent-rewind's cookies left out, as the driver leaves them out). */
function manifest(root: string): Manifest {
  const out: Manifest = {};
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.github' || name.startsWith('.agent-rewind')) continue;
      const p = join(dir, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p, `${rel}${name}/`);
      else if (st.isFile()) out[`${rel}${name}`] = [createHash('sha256').update(readFileSync(p)).digest('hex'), st.mode & 0o777];
    }
  };
  walk(root, '');
  return out;
}

/** The top-level keys two versions of a JSON object differ in. */
function changedKeys(before: string, after: string): string[] {
  const a = JSON.parse(before) as Record<string, unknown>;
  const b = JSON.parse(after) as Record<string, unknown>;
  return Object.keys({ ...a, ...b }).filter((k) => !isDeepStrictEqual(a[k], b[k]));
}

function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const d of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!d.isFile()) continue;
    const p = join(d.parentPath ?? (d as unknown as { path: string }).path, d.name);
    out[p] = createHash('sha256').update(readFileSync(p)).digest('hex');
  }
  return out;
}

describe('VS Code chat (code-server 4.139.1, agent mode, scripted model)', () => {
  let vs: VsCode | undefined;
  let out = '';
  /** The CLI; under strace when given a trace file. */
  let cli: (args: string[], traceFile?: string) => { status: number | null; stdout: string; stderr: string };
  /** code-server's user-data folder, named to the CLI as a `--user-data-dir` would be. */
  let userData = '';

  before(async () => {
    const env = e2eEnv();
    const run = newScriptedChatRun('vschat-out');
    out = run.out;
    vs = await openScriptedChat(
      'agent-vscode-chat',
      run,
      ({ workspace, home }) => {
        writeFileSync(join(workspace, 'keep.txt'), 'keep\n');
        writeFileSync(join(workspace, 'gone.txt'), 'to be deleted\n');
        writeFileSync(join(workspace, 'move-me.txt'), 'to be moved\n');
        writeFileSync(join(workspace, 'run.sh'), '#!/bin/sh\necho hi\n');
        chmodSync(join(workspace, 'run.sh'), 0o755);
        cli = (args, traceFile) => {
          const opts = {
            cwd: workspace,
            env: { ...process.env, AGENT_REWIND_HOME: home, ...(userData ? { AGENT_REWIND_VSCODE_USER_DATA: userData } : {}) },
          };
          const argv = [join(env.repo, 'dist', 'cli.js'), ...args];
          return traceFile ? traceCommand(process.execPath, argv, traceFile, opts) : spawnSync(process.execPath, argv, { ...opts, encoding: 'utf8' });
        };
        const installed = cli(['hooks', 'install', 'vscode-chat', '--cwd', workspace]);
        assert.equal(installed.status, 0, installed.stderr);
        const sh = (command: string) => runInTerminal(workspace, command);
        const create = (path: string, content: string) => createFile(workspace, path, content);
        const replace = (path: string, oldString: string, newString: string) => replaceInFile(workspace, path, oldString, newString);
        writeChatScript(run, workspace, [
          {
            marker: 'STEP-ONE',
            prompt: 'STEP-ONE: create notes.txt and edit keep.txt',
            calls: [create('notes.txt', 'notes\n'), replace('keep.txt', 'keep', 'kept')],
            reply: 'Created and edited.',
          },
          {
            marker: 'STEP-TWO',
            prompt: 'STEP-TWO: tidy up in the terminal',
            calls: [
              sh("rm gone.txt && mv move-me.txt moved.txt && chmod 644 run.sh && printf 'by the terminal\\n' > term.txt"),
              create('sub/new.txt', 'new\n'),
            ],
            reply: 'Tidied.',
          },
          {
            marker: 'STEP-THREE',
            prompt: 'STEP-THREE: one more round',
            calls: [sh("mkdir -p late && printf 'late\\n' > late/file.txt && rm notes.txt"), replace('keep.txt', 'kept', 'kept twice')],
            reply: 'Done.',
          },
        ]);
      },
      (m) => console.log(`vscode-chat: ${m}`),
    );
    userData = vs.server.userDataDir;
  });
  after(async () => {
    await vs?.close();
  });

  it('three agent requests; the session is listed; rewind-files and Rewind to here to the second request give its workspace back; undo; VS Code files untouched', () =>
    withArtifacts(
      () => vs,
      'agent vscode chat',
      async () => {
        const { page, workspace } = vs!;
        await waitFor('the driver to send three prompts', () => existsSync(join(out, 'done.json')) || existsSync(join(out, 'error.json')), 300_000);
        if (existsSync(join(out, 'error.json'))) assert.fail(`the driver failed: ${readFileSync(join(out, 'error.json'), 'utf8')}`);
        const storage = dirname((JSON.parse(readFileSync(join(out, 'storage.json'), 'utf8')) as { fsPath: string }).fsPath);
        // VS Code writes its log about every 5 s: wait for the three requests, complete
        let log = '';
        let requests: { requestId: string; message: { text: string }; modelState?: { value: number } }[] = [];
        await waitFor(
          'the chat log to hold three complete requests',
          () => {
            const dir = join(storage, 'chatSessions');
            const file = existsSync(dir) ? readdirSync(dir).find((n) => n.endsWith('.jsonl')) : undefined;
            if (!file) return false;
            log = join(dir, file);
            const state = replayMutationLog(readFileSync(log)).state;
            requests = ((state?.requests ?? []) as typeof requests).filter((r) => /STEP-/.test(r.message.text));
            return requests.length === 3 && requests.every((r) => r.modelState?.value === 1);
          },
          120_000,
        );
        const sessionId = log
          .split('/')
          .pop()!
          .replace(/\.jsonl$/, '');
        const second = requests[1]!.requestId;
        const atSecond = JSON.parse(readFileSync(join(out, 'before-2.json'), 'utf8')) as Manifest;
        const final = manifest(workspace);
        assert.notDeepEqual(final, atSecond);
        assert.ok(!('gone.txt' in final) && 'moved.txt' in final && final['run.sh']![1] === 0o644, 'the terminal changes happened');
        await new Promise((r) => setTimeout(r, 6_000)); // VS Code's last write of the finished session
        // VS Code's own files: the log and the editing session's contents byte for byte; its editing state.json is
        // rewritten by VS Code itself whenever files it tracks change on disk (as a rewind changes them)
        const editingState = join(storage, 'chatEditingSessions', sessionId, 'state.json');
        const vsFiles = () => {
          const all = { ...hashes(join(storage, 'chatSessions')), ...hashes(join(storage, 'chatEditingSessions', sessionId)) };
          delete all[editingState];
          return all;
        };

        const stateBefore = readFileSync(editingState, 'utf8');
        const vsBefore = vsFiles();

        // the CLI lists it and rewinds its files to the second request, then undoes that
        const listed = cli(['sessions', '--json']);
        assert.equal(listed.status, 0, listed.stderr);
        const mine = (JSON.parse(listed.stdout) as { id: string; source: string; title: string }[]).find((s) => s.id === sessionId);
        assert.ok(mine, `sessions lists ${sessionId}: ${listed.stdout.slice(0, 400)}`);
        assert.equal(mine.source, 'vscode-chat');
        // every path agent-rewind opens, renames or removes from here to the end of the UI's Undo, under strace: the
        // CLI's, and the extension host's (every thread), where the UI rewinds and where the checkpoint service the CLI
        // asks runs
        const extensionHost = findProcesses('extensionHost', `AGENT_REWIND_HOME=${vs!.home}`);
        assert.ok(extensionHost.length > 0, 'found the extension host');
        const hostTrace = await attachTrace(extensionHost, join(out, 'strace-extension-host.txt'));
        // VS Code may write a file its create_file tool made after its Stop hook has fired, so the timeline sees
        // sub/new.txt appear just after the second request's turn; VS Code's own records (its editing state, its log)
        // say that request's tool wrote it, so it is the session's like every other change, and the default rewind
        // (no --overwrite-user-modified) gives back the workspace of then
        const dry = cli(['rewind-files', sessionId, second, '--dry-run', '--json']);
        assert.equal(dry.status, 0, dry.stderr);
        const attributed = (JSON.parse(dry.stdout) as { files: { path: string; changedBy: string }[] }).files;
        // whether this run met the late write: the file's history reads the timeline alone (no agent's records)
        const newHistory = JSON.parse(cli(['history', join(workspace, 'sub', 'new.txt'), '--json']).stdout || '{}') as { entries?: { owner: unknown }[] };
        console.log(`vscode-chat: the timeline alone gives sub/new.txt's last change to ${JSON.stringify(newHistory.entries?.[0]?.owner ?? null)}`);
        if (attributed.some((f) => f.changedBy !== 'this-session')) {
          // what the timeline knows of the files said to be someone else's, to tell why
          for (const f of attributed.filter((x) => x.changedBy !== 'this-session')) {
            console.log(`vscode-chat: history of ${f.path}: ${cli(['history', join(workspace, f.path), '--json']).stdout.slice(0, 3000)}`);
          }
          writeFileSync(join(out, 'editing-state-at-dry-run.json'), readFileSync(editingState));
        }
        assert.deepEqual(
          attributed.filter((f) => f.changedBy !== 'this-session'),
          [],
          `every change since the second request is this session's: ${dry.stdout.slice(0, 2000)}`,
        );
        const rewound = cli(['rewind-files', sessionId, second, '--json'], join(out, 'strace-rewind-files.txt'));
        assert.equal(rewound.status, 0, rewound.stderr);
        assert.deepEqual(
          manifest(workspace),
          atSecond,
          `rewind-files: the workspace as it was when the second request was sent (it said: ${rewound.stdout.slice(0, 3000)})`,
        );
        const undone = cli(['undo-rewind', sessionId, '--json'], join(out, 'strace-undo-rewind.txt'));
        assert.equal(undone.status, 0, undone.stderr);
        assert.deepEqual(manifest(workspace), final, 'undo-rewind puts it back');
        const cliTrace = ['strace-rewind-files.txt', 'strace-undo-rewind.txt'].map((f) => readFileSync(join(out, f), 'utf8')).join('\n');
        const chatFolders = [join(storage, 'chatSessions'), join(storage, 'chatEditingSessions')];
        const vsCalls = (trace: string) => {
          const all = chatFolders.map((f) => callsUnder(trace, f));
          return { writes: all.flatMap((c) => c.writes), reads: all.flatMap((c) => c.reads) };
        };
        const cliCalls = vsCalls(cliTrace);
        assert.deepEqual(cliCalls.writes, [], "the CLI never opens VS Code's files for writing, never renames or removes them");
        assert.ok(
          cliCalls.reads.some((l) => l.includes(log)),
          `the trace sees the CLI read VS Code's log (${cliCalls.reads.length} reads of VS Code's chat files)`,
        );

        // the tree lists it; Rewind to here on the second request, from its transcript
        await sessionRow(page, mine.title);
        await keyMomentScreenshot(vs!, 'vscode-chat-tree');
        await openTranscriptFromSidebar(page, mine.title, second);
        await clickEntryAction(page, second, 'rewind-to-here');
        const preview = await previewFrame(page, '[data-testid="file-row"]');
        assert.match((await preview.locator('body').textContent()) ?? '', /Restore Checkpoint/);
        assert.deepEqual(manifest(workspace), final, 'the preview changed nothing');
        await keyMomentScreenshot(vs!, 'vscode-chat-preview');
        const confirm = await webviewFrame(page, '[data-action="confirm"]');
        await confirm.locator('[data-action="confirm"]').first().click();
        await waitForNotification(page, /Rewound/);
        await waitFor('the files to be rewound', () => isDeepStrictEqual(manifest(workspace), atSecond), 15_000).catch(() => {});
        assert.deepEqual(manifest(workspace), atSecond, 'Rewind to here: the workspace as it was when the second request was sent');
        await clearNotifications(page);
        await runCommand(page, 'Agent Rewind: Undo Last Rewind');
        await waitForNotification(page, /Undid the last rewind/);
        await waitFor('Undo to put the files back', () => isDeepStrictEqual(manifest(workspace), final), 15_000).catch(() => {});
        assert.deepEqual(manifest(workspace), final, 'Undo put the files back');
        await hostTrace.stop();
        const hostText = readFileSync(join(out, 'strace-extension-host.txt'), 'utf8');
        assert.deepEqual(vsCalls(hostText).writes, [], "the extension host never opens VS Code's files for writing, never renames or removes them");
        assert.ok(
          callsUnder(`${cliTrace}\n${hostText}`, workspace).writes.length > 0,
          'the traces see agent-rewind write the workspace (the CLI itself or the checkpoint service it asked)',
        );

        assert.deepEqual(vsFiles(), vsBefore, "VS Code's session log and editing contents are byte for byte what they were");
        // state.json: VS Code rewrote it itself (its view of the files it tracks, which the rewinds changed on disk);
        // everything but that view is as it was
        const stateAfter = readFileSync(editingState, 'utf8');
        writeFileSync(join(out, 'state-before.json'), stateBefore);
        writeFileSync(join(out, 'state-after.json'), stateAfter);
        const changed = changedKeys(stateBefore, stateAfter);
        assert.deepEqual(
          changed.filter((k) => k !== 'recentSnapshot'),
          [],
          'the editing state differs only in the live file view VS Code keeps itself',
        );
        if (changed.length) console.log(`vscode-chat: VS Code rewrote its editing state.json (${changed.join(', ')}) as the files changed`);

        // the control, last of all (VS Code's answer to it is a write of the files outside any turn, which the timeline
        // takes for the user's: not before the rewinds): a change of a file VS Code's edit tools made, from outside (this
        // test, not agent-rewind), makes VS Code rewrite its editing state.json in the same part (its live view of the
        // files); put back, it rewrites again
        const keep = join(workspace, 'keep.txt');
        const keepBytes = readFileSync(keep);
        const controlBefore = readFileSync(editingState, 'utf8');
        writeFileSync(keep, 'changed from outside\n');
        await waitFor('VS Code to rewrite its editing state.json after an outside change', () => readFileSync(editingState, 'utf8') !== controlBefore, 20_000);
        assert.deepEqual(changedKeys(controlBefore, readFileSync(editingState, 'utf8')), ['recentSnapshot'], 'the control: VS Code rewrote its live file view');
        const controlChanged = readFileSync(editingState, 'utf8');
        writeFileSync(keep, keepBytes);
        await waitFor('VS Code to rewrite it again once the file is back', () => readFileSync(editingState, 'utf8') !== controlChanged, 20_000);
        await new Promise((r) => setTimeout(r, 6_000)); // its next write, if any, before the state is recorded
        assert.deepEqual(manifest(workspace), final, 'the control put the file back');

        // the conversation is VS Code's: the preview's "Restore VS Code's checkpoint" opens the session in VS Code's chat
        // and runs its Restore Checkpoint on the second request. VS Code asks, then puts back what its edit tools changed
        // since (keep.txt edited by the third request, sub/new.txt created by the second) and leaves what the terminal
        // did (late/file.txt): the part agent-rewind's Confirm covers and VS Code does not
        await clearNotifications(page);
        await openTranscriptFromSidebar(page, mine.title, second);
        await clickEntryAction(page, second, 'rewind-to-here');
        const offer = await previewFrame(page, '[data-testid="editor-chat-restore"]');
        assert.match(
          (await offer.locator('[data-testid="editor-chat-split"]').textContent()) ?? '',
          /agent-rewind rewinds the files \(Confirm below\), terminal changes included.*VS Code rewinds the conversation/,
        );
        await keyMomentScreenshot(vs!, 'vscode-chat-preview-conversation');
        await offer.locator('[data-testid="editor-chat-restore"]').click();
        const chat = page.locator('.part.editor .interactive-item-container').filter({ hasText: 'STEP-TWO' }).first();
        await chat.waitFor({ state: 'visible', timeout: 30_000 });
        const yes = page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Yes$/ }).first();
        await yes.waitFor({ state: 'visible', timeout: 15_000 });
        await keyMomentScreenshot(vs!, 'vscode-chat-restore-checkpoint');
        await yes.click();
        await waitFor(
          "VS Code's Restore Checkpoint to put back its edit tools' changes",
          () => readFileSync(join(workspace, 'keep.txt'), 'utf8') === 'kept\n' && !existsSync(join(workspace, 'sub', 'new.txt')),
          30_000,
        );
        assert.ok(existsSync(join(workspace, 'late', 'file.txt')), "VS Code's restore leaves what the terminal made");
      },
    ));
});
