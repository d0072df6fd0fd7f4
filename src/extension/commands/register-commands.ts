// Every "Agent Rewind" command. Each accepts a tree node or a plain { sessionRef, ... } object (webviews, other
// extensions, tests) and, from the palette, asks for what it needs. Failures become an error notification with
// the engine's own words; nothing is changed before the user confirmed a destructive step.
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import type { RewindEngine } from '../../core/engine';
import { hookAgents, type AgentAdapter } from '../../core/sources';
import type { ActiveSession } from '../active-session';
import type { CliLauncher } from '../cli-launcher';
import type { SessionEvents } from '../session-events';
import { FileCheckpointNode, NamedCheckpointNode } from '../tree/nodes';
import { UNDO_ACTION } from '../webviews/preview-controller';
import { switchedBranchNotice } from '../webviews/transcript-controller';
import { TranscriptPanel } from '../webviews/transcript-panel';
import { plural } from '../tree/format';
import { withoutCodeMarks } from '../../shared/plain-text';
import { askName, comparePicker, pickBranch, pickCheckpoint, pickSession, pickUserMessage } from './pickers';
import { chooseComparison, type CompareChoice } from './compare-target';
import { chooseHookAgent } from './hook-agent-target';
import { findProgram, missingProgramMessage, resumeLine } from './agent-command';
import { searchSessions } from './search-sessions';
import { showFileHistory } from './file-history-command';
import { branchTargetOf, checkpointTargetOf, entryTargetOf, sessionRefOf } from './targets';
import { undoOrRedo } from './undo-redo-target';

export interface CommandContext {
  engine: RewindEngine;
  active: ActiveSession;
  events: SessionEvents;
  refreshAll(): void;
  showTranscript(sessionRef: string): void;
  showPreview(sessionRef: string, anchorEntryId: string): void;
  /** Opens (or retargets) the Compare panel: A of `sessionRef`, B of `sessionRefB` when set (another session). */
  showCompare(choice: CompareChoice): void;
  /** The Sessions tree's selected node: keybindings (F2, Delete) pass no argument. */
  selectedNode(): unknown;
  /** The agent-rewind launcher on the terminals' PATH (what agent hooks run). */
  launcher: Promise<CliLauncher | undefined>;
}

type Handler = (arg?: unknown) => Promise<unknown>;

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  const { engine, active, events } = ctx;

  /** The session a command acts on: its argument's, else the active one (asking when there are several). */
  const sessionOf = async (arg: unknown, ask = true): Promise<string | undefined> => {
    const explicit = sessionRefOf(arg);
    if (explicit) return explicit;
    const current = await active.current();
    if (!ask) return current;
    const sessions = await engine.listSessions();
    if (sessions.length <= 1) return current ?? sessions[0]?.sessionRef;
    return pickSession(engine, current);
  };
  const changed = (sessionRef: string) => events.fire([sessionRef]);
  /** Opens (or shows) a session's transcript, scrolled to a message when one is given. */
  const openTranscriptAt = async (sessionRef: string, entryId?: string): Promise<void> => {
    await active.set(sessionRef);
    ctx.showTranscript(sessionRef);
    // The panel delivers the reveal once its webview is ready; a message that is not there becomes a notice in it.
    if (entryId) void TranscriptPanel.get({ sessionRef })?.revealEntry(entryId);
  };
  const selectedCheckpoint = () => {
    const node = ctx.selectedNode();
    return node instanceof NamedCheckpointNode ? node : undefined;
  };

  /** Compare: A and B from the argument ({ sessionRef, branchA, branchB[, sessionRefB] }, a branch row, the
   *  transcript's { sessionRef, branch }), the rest asked for; B may be a branch of another session (compare-target.ts). */
  const compareBranches: Handler = async (arg) => {
    const target = branchTargetOf(arg);
    const file = target?.sessionRef ?? (await sessionOf(arg));
    if (!file) return;
    const o = arg !== null && typeof arg === 'object' ? (arg as { branchA?: unknown; branchB?: unknown; sessionRefB?: unknown }) : {};
    const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
    const branchA = text(o.branchA) ?? target?.branch;
    const branchB = text(o.branchB);
    const sessionRefB = text(o.sessionRefB);
    const choice = await chooseComparison(engine, comparePicker, {
      sessionRef: file,
      ...(branchA ? { branchA } : {}),
      ...(branchB ? { branchB } : {}),
      ...(sessionRefB ? { sessionRefB } : {}),
    });
    if (choice) ctx.showCompare(choice);
    return choice;
  };

  /** Registers (or removes) an agent's hooks that snapshot the workspace at every prompt, through the CLI. */
  const setUpHooks = async (agent: AgentAdapter, action: 'install' | 'uninstall'): Promise<void> => {
    const name = agent.displayName;
    const launcher = await ctx.launcher;
    if (!launcher)
      throw new Error(`the agent-rewind command could not be installed for this window (see the Agent Rewind output), so ${name} has nothing to run.`);
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder = folders.length <= 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: `${name} checkpoints for which folder?` });
    const where = agent.hookTargets ?? { workspace: 'its settings in this folder', user: `${name}'s user settings` };
    const scope = await vscode.window.showQuickPick(
      [
        ...(folder ? [{ label: 'This workspace', description: `${folder.name}/${where.workspace}`, user: false }] : []),
        { label: 'All my projects', description: where.user, user: true },
      ],
      {
        placeHolder:
          action === 'install' ? `Snapshot the workspace at every ${name} prompt: where should the hooks go?` : 'Remove the Agent Rewind hooks from…',
      },
    );
    if (!scope) return;
    const args = [
      'hooks',
      action,
      agent.id,
      '--json',
      ...(scope.user ? ['--user'] : ['--cwd', folder!.uri.fsPath]),
      ...(action === 'install' ? ['--command', launcher.command] : []),
    ];
    const out = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title:
          action === 'install' ? `Agent Rewind: setting up ${name} checkpoints (a first snapshot of the folder)…` : `Agent Rewind: removing the ${name} hooks…`,
      },
      () => runLauncher(launcher.command, args, folder?.uri.fsPath),
    );
    const parsed = JSON.parse(out) as { file: string; target?: string };
    // a symlinked user settings file is written through: name the file that changed
    const change = { file: parsed.target ? `${parsed.file} (a link to ${parsed.target})` : parsed.file };
    void vscode.window.showInformationMessage(
      action === 'install'
        ? `${name} now snapshots the workspace at every prompt (shell changes included), through hooks in ${change.file}. Rewind to here on a ${name} message restores exactly that.`
        : `The Agent Rewind hooks were removed from ${change.file}; everything else there was kept.`,
    );
    ctx.refreshAll();
  };

  const handlers: Record<string, Handler> = {
    'agentRewind.refresh': async () => ctx.refreshAll(),

    // every agent with hooks, built-in or loaded from agentRewind.agentModules, through one picker ({ agent: id } or
    // the id as the argument picks it)
    'agentRewind.setUpAgentCheckpoints': async (arg) => {
      const agent = await chooseHookAgent(hookAgents(), arg, 'install', comparePicker);
      if (agent) await setUpHooks(agent, 'install');
    },
    'agentRewind.removeAgentHooks': async (arg) => {
      const agent = await chooseHookAgent(hookAgents(), arg, 'uninstall', comparePicker);
      if (agent) await setUpHooks(agent, 'uninstall');
    },

    'agentRewind.openTranscript': async (arg) => {
      // { sessionRef, entryId } and checkpoint nodes open at their message; a session opens where it was.
      const target = entryTargetOf(arg);
      if (target) return openTranscriptAt(target.sessionRef, target.entryId);
      const file = sessionRefOf(arg) ?? (await pickSession(engine, await active.current()));
      if (file) await openTranscriptAt(file);
    },

    'agentRewind.rewindToHere': async (arg) => {
      const target = entryTargetOf(arg);
      if (target) return ctx.showPreview(target.sessionRef, target.entryId);
      const file = await sessionOf(arg);
      if (!file) return;
      const entryId = await pickUserMessage(engine, file, 'Rewind to here: choose one of your messages');
      if (entryId) ctx.showPreview(file, entryId);
    },

    'agentRewind.switchBranch': async (arg) => {
      const target = branchTargetOf(arg);
      const file = target?.sessionRef ?? (await active.current());
      if (!file) return void vscode.window.showInformationMessage('Agent Rewind: this workspace has no agent sessions yet.');
      const name = target?.branch ?? (await pickBranch(engine, file));
      if (!name) return;
      const branch = await engine.switchBranch(file, name);
      await active.set(file);
      changed(file);
      // The conversation moved and the files did not: say so (a transcript ending in "Added test/app.test.js." while
      // test/ does not exist is confusing when nothing explained it).
      void vscode.window.showInformationMessage(`Agent Rewind: ${switchedBranchNotice(branch.name)}`);
    },

    'agentRewind.showBranch': async (arg) => {
      // A click on a branch row: the branch is shown in the transcript, nothing is switched or written.
      const target = branchTargetOf(arg);
      if (!target) return;
      await active.set(target.sessionRef);
      ctx.showTranscript(target.sessionRef);
      if (target.branch) await TranscriptPanel.get({ sessionRef: target.sessionRef })?.showBranch(target.branch);
    },

    'agentRewind.compareBranches': compareBranches,
    // "Compare with…" on a branch row: that branch is A, the other is asked for.
    'agentRewind.compareWithBranch': compareBranches,

    'agentRewind.continueInAgent': async (arg) => {
      const o = arg as { sessionRef?: unknown; agent?: unknown; resumeCommand?: unknown } | undefined;
      const command = Array.isArray(o?.resumeCommand) && o.resumeCommand.every((p) => typeof p === 'string') ? (o.resumeCommand as string[]) : undefined;
      if (!command?.length) return;
      const agent = typeof o?.agent === 'string' ? o.agent : 'Agent';
      // The agent's program as the user configured it (not everyone has `claude` on PATH): checked before a terminal
      // would only say "command not found".
      const config = vscode.workspace.getConfiguration('agentRewind');
      const resume = resumeLine(command, (key) => config.get<string>(key));
      if (!(await findProgram(resume.program))) {
        const actions = [...(resume.setting ? [OPEN_SETTING] : []), COPY_COMMAND, RUN_ANYWAY];
        const choice = await vscode.window.showWarningMessage(`Agent Rewind: ${missingProgramMessage(agent, resume)}`, ...actions);
        if (choice === OPEN_SETTING) return void (await vscode.commands.executeCommand('workbench.action.openSettings', resume.setting));
        if (choice === COPY_COMMAND) return void (await vscode.env.clipboard.writeText(resume.line));
        if (choice !== RUN_ANYWAY) return;
      }
      const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const terminal = vscode.window.createTerminal({ name: agent, ...(cwd ? { cwd } : {}) });
      terminal.show();
      terminal.sendText(resume.line);
    },

    'agentRewind.restoreCheckpoint': async (arg) => {
      // Every checkpoint rewinds through the same preview: a file snapshot is a user message's anchor ("Rewind to
      // here"), a named checkpoint is its message (the conversation and state; the files where that is a message you
      // sent). A named checkpoint used to get a modal instead, conversation only, and no Undo.
      if (arg instanceof FileCheckpointNode) return ctx.showPreview(arg.sessionRef, arg.checkpoint.anchorEntryId);
      if (arg instanceof NamedCheckpointNode) return ctx.showPreview(arg.sessionRef, arg.checkpoint.entryId);
      const target = checkpointTargetOf(arg);
      const file = target?.sessionRef ?? (await sessionOf(arg));
      if (!file) return;
      if (!target?.name) {
        const picked = await pickCheckpoint(engine, file, { title: 'Rewind to a checkpoint' });
        if (!picked) return;
        return ctx.showPreview(file, picked.kind === 'file' ? picked.anchorEntryId : picked.entryId);
      }
      const named = (await engine.describeSession(file)).namedCheckpoints.find((c) => c.name === target.name);
      if (!named) throw new Error(`There is no checkpoint "${target.name}" in this session.`);
      ctx.showPreview(file, named.entryId);
    },

    'agentRewind.renameCheckpoint': async (arg) => {
      const target = checkpointTargetOf(arg ?? selectedCheckpoint());
      const file = target?.sessionRef ?? (await sessionOf(arg));
      if (!file) return;
      let name = target?.name;
      if (!name) {
        const picked = await pickCheckpoint(engine, file, { title: 'Rename which checkpoint?', namedOnly: true });
        if (picked?.kind !== 'named') return;
        name = picked.name;
      }
      const newName = await askName(`New name for checkpoint "${name}"`, name);
      if (!newName || newName === name) return;
      await engine.renameCheckpoint(file, name, newName);
      changed(file);
    },

    'agentRewind.deleteCheckpoint': async (arg) => {
      const target = checkpointTargetOf(arg ?? selectedCheckpoint());
      const file = target?.sessionRef ?? (await sessionOf(arg));
      if (!file) return;
      let name = target?.name;
      if (!name) {
        const picked = await pickCheckpoint(engine, file, { title: 'Delete which checkpoint?', namedOnly: true });
        if (picked?.kind !== 'named') return;
        name = picked.name;
      }
      const answer = await vscode.window.showWarningMessage(
        `Delete checkpoint "${name}"?`,
        { modal: true, detail: 'Only the name goes; no message, branch or file is deleted.' },
        'Delete',
      );
      if (answer !== 'Delete') return;
      await engine.deleteCheckpoint(file, name);
      changed(file);
    },

    'agentRewind.createCheckpoint': async (arg) => {
      const file = await sessionOf(arg);
      if (!file) return;
      const o = arg as { name?: unknown } | undefined;
      const name =
        typeof o?.name === 'string' && o.name.trim()
          ? o.name.trim()
          : await askName("Name the checkpoint (the active branch's last message)", '', 'e.g. before-refactor');
      if (!name) return;
      const checkpoint = await engine.createCheckpoint(file, name);
      changed(file);
      vscode.window.setStatusBarMessage(`$(bookmark) Agent Rewind: checkpoint "${checkpoint.name}" created`, 4000);
      return checkpoint;
    },

    'agentRewind.revealSessionFile': async (arg) => {
      const ref = await sessionOf(arg);
      if (!ref) return;
      // the file that holds the session, as its agent's adapter says (a row's: its database)
      const file = await engine.sessionFileOf(ref);
      if (!file) {
        void vscode.window.showInformationMessage('Agent Rewind: this session is not kept in a file of its own.');
        return;
      }
      const uri = vscode.Uri.file(file);
      if (vscode.workspace.getWorkspaceFolder(uri)) await vscode.commands.executeCommand('revealInExplorer', uri);
      else if (vscode.env.uiKind === vscode.UIKind.Desktop && vscode.env.remoteName === undefined) await vscode.commands.executeCommand('revealFileInOS', uri);
      await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: false });
    },

    'agentRewind.undoLastRewind': async (arg) => {
      // A session given (the view's menu, a notification's button): its last rewind. The palette and the keybinding:
      // the last rewind made in the workspace, wherever it was made (undo-redo-target.ts).
      const given = sessionRefOf(arg);
      // Progress in the status bar: a progress notification just before the result's would keep that one (with its
      // Redo button) from being shown as a toast.
      const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Agent Rewind: undoing the last rewind…' }, () =>
        undoOrRedo(engine, 'undo', given, async () => (await active.current()) ?? (await sessionOf(arg))),
      );
      if (!result) return void vscode.window.showInformationMessage('Agent Rewind: this workspace has no agent sessions yet.');
      await active.set(result.sessionRef);
      changed(result.sessionRef);
      const choice = await vscode.window.showInformationMessage(
        undoRedoSummary('Undid the last rewind', 'put back', result),
        ...(result.redoAvailable ? [REDO_ACTION] : []),
      );
      if (choice === REDO_ACTION) await vscode.commands.executeCommand('agentRewind.redoLastRewind', given ? { sessionRef: given } : undefined);
      return result;
    },

    'agentRewind.redoLastRewind': async (arg) => {
      const given = sessionRefOf(arg);
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'Agent Rewind: applying the undone rewind again…' },
        () => undoOrRedo(engine, 'redo', given, async () => (await active.current()) ?? (await sessionOf(arg))),
      );
      if (!result) return void vscode.window.showInformationMessage('Agent Rewind: this workspace has no agent sessions yet.');
      await active.set(result.sessionRef);
      changed(result.sessionRef);
      const undo = await engine.describeUndo(result.sessionRef).catch(() => undefined);
      const text = `${undoRedoSummary('Redid the rewind', 'rewound', result)}${undo ? ` ${undo}` : ''}`;
      const choice = await vscode.window.showInformationMessage(text, ...(undo ? [UNDO_ACTION] : []));
      if (choice === UNDO_ACTION) await vscode.commands.executeCommand('agentRewind.undoLastRewind', given ? { sessionRef: given } : undefined);
      return result;
    },

    'agentRewind.openSessionFoldersSetting': async () => {
      // agentRewind.sessionFolders is machine-overridable: it can be set for the workspace or the remote machine,
      // so open the tab where this window's value is edited, already filtered to it.
      const query = 'agentRewind.sessionFolders';
      const command = vscode.env.remoteName
        ? 'workbench.action.openRemoteSettings'
        : vscode.workspace.workspaceFolders?.length
          ? 'workbench.action.openWorkspaceSettings'
          : 'workbench.action.openSettings';
      await vscode.commands.executeCommand(command, { query });
    },

    // the explorer's and the editor title's menus pass the file's uri; the palette acts on the active editor's file
    'agentRewind.fileHistory': async (arg) => showFileHistory(engine, arg, changed),

    'agentRewind.searchSessions': async () =>
      searchSessions({
        search: (query) => engine.searchMessages(query),
        open: ({ sessionRef, entryId }) => openTranscriptAt(sessionRef, entryId),
      }),

    'agentRewind.forkFromMessage': async (arg) => {
      let target = entryTargetOf(arg);
      if (!target) {
        const file = await sessionOf(arg);
        const entryId = file && (await pickUserMessage(engine, file, 'Fork from which message?'));
        if (!file || !entryId) return;
        target = { sessionRef: file, entryId };
      }
      const branch = await engine.fork(target.sessionRef, target.entryId);
      changed(target.sessionRef);
      void vscode.window.showInformationMessage(`Forked: now on branch "${branch.name}" (files unchanged).`);
      return branch;
    },

    'agentRewind.labelMessage': async (arg) => {
      let target = entryTargetOf(arg);
      if (!target) {
        const file = await sessionOf(arg);
        const entryId = file && (await pickUserMessage(engine, file, 'Label which message?'));
        if (!file || !entryId) return;
        target = { sessionRef: file, entryId };
      }
      const current = (await engine.session(target.sessionRef)).getLabel(target.entryId) ?? '';
      const label = await vscode.window.showInputBox({ prompt: 'Label for this message (empty removes it)', value: current });
      if (label === undefined) return;
      await engine.label(target.sessionRef, target.entryId, label);
      changed(target.sessionRef);
    },
  };
  // each agent's own hook commands, by the ids it declares (package.json contributes them; they keep working)
  for (const agent of hookAgents()) {
    if (!agent.hookCommands) continue;
    handlers[agent.hookCommands.install] = async () => setUpHooks(agent, 'install');
    handlers[agent.hookCommands.uninstall] = async () => setUpHooks(agent, 'uninstall');
  }

  return Object.entries(handlers).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (arg?: unknown) => {
      try {
        return await handler(arg);
      } catch (error) {
        // A notification shows text as it is: the engine's `code` marks would show as raw backticks.
        void vscode.window.showErrorMessage(`Agent Rewind: ${withoutCodeMarks((error as Error)?.message ?? String(error))}`);
        return undefined;
      }
    }),
  );
}

export const REDO_ACTION = 'Redo';

/** What an undo or a redo did, in one sentence: "Undid the last rewind: 2 files put back; back on branch "main"." */
export function undoRedoSummary(what: string, verb: string, r: { filesChanged: string[]; userModified: string[]; branch?: string }): string {
  const parts: string[] = [];
  if (r.filesChanged.length) parts.push(`${plural(r.filesChanged.length, 'file')} ${verb}`);
  if (r.branch) parts.push(`now on branch "${r.branch}"`);
  const kept = r.userModified.length
    ? ` ${r.userModified.length === 1 ? 'A file you changed since was' : `${r.userModified.length} files you changed since were`} left as ${r.userModified.length === 1 ? 'it is' : 'they are'}.`
    : '';
  return `${what}${parts.length ? `: ${parts.join('; ')}` : ' (no file needed changing)'}.${kept}`;
}

const OPEN_SETTING = 'Open Setting';
const COPY_COMMAND = 'Copy Command';
/** The terminal's shell may find what the extension host's PATH does not (a version manager set up in .bashrc). */
const RUN_ANYWAY = 'Run Anyway';

/** Runs the CLI through its launcher; resolves with its stdout, rejects with its own error message. */
function runLauncher(command: string, args: string[], cwd: string | undefined): Promise<string> {
  return new Promise((resolveRun, reject) => {
    execFile(command, args, { cwd, timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(stderr.replace(/^agent-rewind: (error: )?/, '').trim() || error.message));
      else resolveRun(stdout);
    });
  });
}
