// Wires the extension together. Activation only registers things: no session is read, no tree walked, no sql.js
// loaded until the Sessions view asks for its children or a command runs.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import * as vscode from 'vscode';
import { RewindEngine } from '../core/engine';
import { foreignSources } from '../core/sources';
import { CheckpointServiceHost, SERVICE_WORKER_LIMITS } from '../core/service';
import { WATCH_LIMIT_FIX } from '../core/files';
import { installCliLauncher, type CliLauncher } from './cli-launcher';
import { ActiveSession } from './active-session';
import { createApi, type AgentRewindApi } from './api';
import { registerCommands } from './commands/register-commands';
import { Disposable } from './disposable';
import { registerLanguageModelTools } from './lm-tools';
import { PanelServices } from './panel-services';
import { SessionEvents } from './session-events';
import { SessionWatcher } from './session-watcher';
import { affectsEngine, editorStorageOf, readSettings } from './settings';
import { SNAPSHOT_SCHEME, SnapshotDocuments } from './snapshot-documents';
import { BranchStatusBar } from './status-bar';
import { plural } from './tree/format';
import type { TreeNode } from './tree/nodes';
import { refreshAgesWhileVisible } from './tree/age-refresh';
import { SessionsTreeProvider } from './tree/sessions-tree-provider';
import { TimelineTreeProvider } from './tree/timeline-tree-provider';
import { TimelineWatcher } from './timeline-watcher';
import { AgentBlame } from './blame/agent-blame';
import { ComparePanel } from './webviews/compare-panel';
import type { CompareRef } from './webviews/services';
import { RewindPreviewPanel } from './webviews/rewind-preview-panel';
import { TranscriptPanel } from './webviews/transcript-panel';
import { WorkspaceFileWatcher } from './workspace-file-watcher';

/** How often the Sessions view's relative times ("3 min ago") are brought up to date while it is visible. */
const AGE_REFRESH_MS = 60_000;

export class AgentRewindExtension extends Disposable {
  readonly api: AgentRewindApi;
  /** The CLI launcher on the terminals' PATH (undefined when it could not be written). */
  readonly launcher: Promise<CliLauncher | undefined>;

  constructor(context: vscode.ExtensionContext) {
    super();
    const log = this._register(vscode.window.createOutputChannel('Agent Rewind', { log: true }));
    const engine = new RewindEngine({
      settings: readSettings(editorStorageOf(context)),
      workspaceRoots: workspaceRoots(),
      warn: (m) => log.warn(m),
      // file snapshots read and hash whole trees: in a worker thread, so the extension host never blocks on them
      filesWorker: () => new Worker(join(__dirname, 'files-worker.js')),
      // Claude Code's (and later Codex's) sessions, read in place
      foreignSources,
    });
    this._register({ dispose: () => void engine.dispose() });

    // The checkpoint service for the open folders (in a worker thread): Claude Code / Codex hooks and the CLI in
    // this machine's terminals ask it for their snapshots instead of re-checking the whole tree in a fresh process.
    const service = new CheckpointServiceHost(
      // with the young generation a service process gets (service-heap.ts): it lives as long as the window
      () => new Worker(join(__dirname, 'service-worker.js'), { resourceLimits: SERVICE_WORKER_LIMITS }),
      (m) => log.info(m),
      (m) => {
        log.warn(`checkpoint service: ${m}`);
        const copy = m.includes(WATCH_LIMIT_FIX) ? ['Copy the sysctl line'] : [];
        void vscode.window.showWarningMessage(m, ...copy).then((pick) => {
          if (pick) void vscode.env.clipboard.writeText(WATCH_LIMIT_FIX);
        });
      },
    );
    this._register({ dispose: () => void service.dispose() });
    const updateService = () => {
      const on = vscode.workspace.getConfiguration('agentRewind').get<boolean>('checkpointService.enabled', true);
      void service
        .update(on ? { home: engine.settings.home, workspaces: workspaceRoots() } : undefined)
        .catch((err: Error) => log.warn(`checkpoint service: ${err.message}`));
    };
    updateService();

    // `agent-rewind` in integrated terminals (and the command agent hooks run).
    // a home set in the settings is the hooks' too (the service listens there); else they resolve it as the CLI does
    const configuredHome = vscode.workspace.getConfiguration('agentRewind').get<string>('home', '').trim();
    this.launcher = installCliLauncher(context, configuredHome ? engine.settings.home : undefined).catch((error: unknown) => {
      log.warn(`The agent-rewind command could not be put on the terminals' PATH: ${(error as Error).message}`);
      return undefined;
    });

    const events = this._register(new SessionEvents());
    const active = this._register(new ActiveSession(engine, context.workspaceState));
    const tree = this._register(new SessionsTreeProvider(engine));
    const treeView = this._register(vscode.window.createTreeView('agentRewind.sessions', { treeDataProvider: tree, showCollapseAll: true }));
    const status = this._register(new BranchStatusBar(engine, active));
    // Delete and F2 act on named checkpoints only: their keybindings check the selected row's kind (VS Code's
    // viewItem is not available to keybindings).
    const setFocusedItem = (node: TreeNode | undefined) =>
      void vscode.commands.executeCommand('setContext', 'agentRewind.focusedItem', node ? node.toTreeItem(Date.now()).contextValue : '');
    this._register(treeView.onDidChangeSelection((e) => setFocusedItem(e.selection[0])));
    // "3 min ago" must not stay "just now".
    this._register(refreshAgesWhileVisible(treeView, () => tree.refresh(), AGE_REFRESH_MS));
    // every snapshot of the open folders, any session of any agent, newest first (issue 27, item 6); agent blame
    // (item 5). Both follow the folders' timeline files, and the session events below.
    const timeline = this._register(new TimelineTreeProvider(engine));
    this._register(vscode.window.createTreeView('agentRewind.timeline', { treeDataProvider: timeline, showCollapseAll: true }));
    const blame = this._register(new AgentBlame(engine, log));
    const timelineWatcher = this._register(new TimelineWatcher(() => engine.timelineFiles()));
    this._register(
      timelineWatcher.onDidChange(() => {
        timeline.refresh();
        blame.changed();
      }),
    );
    timelineWatcher.watch();

    const changed = (file: string) => events.fire([file]);
    const services = new PanelServices(engine, events, {
      showPreview: (ref, anchor) => void RewindPreviewPanel.show(context.extensionUri, ref, anchor, services),
    });
    const showTranscript = (sessionRef: string) => void TranscriptPanel.show(context.extensionUri, { sessionRef }, services);
    const showPreview = (sessionRef: string, anchor: string) => void RewindPreviewPanel.show(context.extensionUri, { sessionRef }, anchor, services);
    const showCompare = (choice: CompareRef) => void ComparePanel.show(context.extensionUri, choice, services);
    // Transcripts come back after a window reload (the webview saved its session file with setState).
    this._register(
      vscode.window.registerWebviewPanelSerializer(TranscriptPanel.viewType, {
        deserializeWebviewPanel: async (panel, state) => void TranscriptPanel.revive(panel, context.extensionUri, state, services),
      }),
    );

    // Sessions changed (another process, or us): refresh what shows them. The tree keeps its expansion. The watcher
    // reports paths; the engine says which sessions they changed (only those whose stamp moved).
    const watcher = this._register(new SessionWatcher());
    this._register(
      watcher.onDidChange((paths) => {
        void engine.changedSessions(paths).then(
          (refs) => {
            events.fire(refs);
            for (const ref of refs) void snapshotNewPrompts(ref);
          },
          (error: Error) => log.warn(`could not tell which sessions changed: ${error.message}`),
        );
      }),
    );
    this._register(
      events.onDidChange((refs) => {
        log.info(`sessions changed: ${refs.join(', ')}`);
        void Promise.all(refs.map((r) => engine.sessionChanged(r))).then(() => {
          tree.refresh();
          void status.refresh();
          timeline.refresh();
          blame.changed();
          timelineWatcher.ensureWatching();
        });
      }),
    );
    // An agent without our hooks (VS Code's own chat) shows a new prompt only in its log: snapshot it at once, late.
    const snapshotNewPrompts = async (ref: string) => {
      try {
        const r = await engine.snapshotNewPrompts(ref);
        for (const t of r.taken) log.info(`snapshot of ${t.entryId} taken ${(t.lagMs / 1000).toFixed(1)} s after it was sent (no hooks): ${ref}`);
        for (const s of r.skipped) log.info(`no snapshot of ${s.entryId}: ${s.reason}`);
        if (r.taken.length) events.fire([ref]);
      } catch (error) {
        log.warn(`could not snapshot the new prompt of ${ref}: ${(error as Error).message}`);
      }
    };
    watcher.watch(engine.sessionFolders());

    this._register(new WorkspaceFileWatcher(engine));
    this._register(vscode.workspace.registerTextDocumentContentProvider(SNAPSHOT_SCHEME, this._register(new SnapshotDocuments(engine))));

    for (const d of registerCommands({
      engine,
      active,
      events,
      refreshAll: () => {
        tree.refresh();
        timeline.refresh();
        void status.refresh();
      },
      showTranscript,
      showPreview,
      showCompare,
      selectedNode: () => (treeView.visible ? treeView.selection[0] : undefined),
      launcher: this.launcher,
    }))
      this._register(d);
    for (const d of registerLanguageModelTools(engine, active, changed)) this._register(d);

    this._register(
      vscode.workspace.onDidChangeConfiguration(async (e) => {
        if (!affectsEngine(e)) return;
        const settings = readSettings(editorStorageOf(context));
        log.info(`settings changed: file checkpointing ${settings.fileCheckpointing.enabled ? 'on' : 'off'}, home ${settings.home}`);
        await engine.updateSettings(settings);
        updateService();
        watcher.watch(engine.sessionFolders());
        timelineWatcher.watch();
        timeline.refresh();
        tree.refresh();
        void status.refresh();
      }),
    );
    this._register(
      vscode.workspace.onDidChangeWorkspaceFolders(async () => {
        await engine.setWorkspaceRoots(workspaceRoots());
        updateService();
        watcher.watch(engine.sessionFolders());
        timelineWatcher.watch();
        timeline.refresh();
        tree.refresh();
        void status.refresh();
      }),
    );

    // The status bar reads one session, after activation has returned.
    setTimeout(() => void status.refresh(), 0);

    this.api = createApi(engine, changed, () => workspaceRoots()[0]);
    log.info(
      `activated: home ${engine.settings.home}, watching ${plural(engine.sessionFolders().length, 'session folder')}, file checkpointing ${engine.settings.fileCheckpointing.enabled ? 'on' : 'off'}`,
    );
  }
}

function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}
