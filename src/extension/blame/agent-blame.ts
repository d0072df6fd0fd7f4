// Agent blame in the editor (issue 27, item 5): for the line under the cursor, a status bar item (and, on a line an
// agent wrote, a hover) saying which prompt of which agent last changed it, or "you", with links to open the prompt and
// the file's history. Setting `agentRewind.blame.enabled` (default on: it reads nothing until the cursor rests in a
// workspace file, and then once per file until it is saved or the timeline grows). Glue only: the blame and the
// matching of unsaved lines are the engine's (core/engine/line-blame.ts), the texts blame-text.ts's.
import * as vscode from 'vscode';
import type { RewindEngine } from '../../core/engine';
import { Disposable } from '../disposable';
import { lineBlameMarkdown, lineBlameText } from './blame-text';
import { CursorBlame, LineBlameCache, type BlameDocument } from './line-blame-cache';

/** How long the cursor rests on a line before its blame is looked up. */
const REST_MS = 400;
/** Past this many lines a document gets no blame (the line match would cost more than it tells). */
const MAX_LINES = 50_000;
const LINK_COMMANDS = ['agentRewind.openTranscript', 'agentRewind.fileHistory'];

function enabled(): boolean {
  return vscode.workspace.getConfiguration('agentRewind').get<boolean>('blame.enabled', true);
}

function blameDocument(doc: vscode.TextDocument): BlameDocument | undefined {
  if (doc.uri.scheme !== 'file' || doc.lineCount > MAX_LINES || !vscode.workspace.getWorkspaceFolder(doc.uri)) return undefined;
  return {
    path: doc.uri.fsPath,
    get version() {
      return doc.version;
    },
    getText: () => doc.getText(),
  };
}

export class AgentBlame extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('agentRewind.blame', vscode.StatusBarAlignment.Right, 200));
  private readonly cache: LineBlameCache;
  private readonly cursor: CursorBlame;
  private on = enabled();

  constructor(engine: RewindEngine, log: vscode.LogOutputChannel) {
    super();
    this.item.name = 'Agent Rewind Blame';
    this.cache = new LineBlameCache(engine, (path, error) => log.debug(`no agent blame for ${path}: ${error.message}`));
    this.cursor = new CursorBlame(this.cache, (r) => this.show(r), REST_MS);
    this._register({ dispose: () => this.cursor.cancel() });
    this._register(vscode.window.onDidChangeTextEditorSelection((e) => e.textEditor === vscode.window.activeTextEditor && this.ask()));
    this._register(vscode.window.onDidChangeActiveTextEditor(() => this.ask()));
    this._register(
      vscode.workspace.onDidSaveTextDocument(() => {
        this.cache.invalidate();
        this.ask();
      }),
    );
    // a document that is not dirty after a change was reloaded from disk (an agent wrote the file): read it again
    this._register(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.isDirty || e.document.uri.scheme !== 'file') return;
        this.cache.invalidate();
        if (e.document === vscode.window.activeTextEditor?.document) this.ask();
      }),
    );
    this._register(vscode.workspace.onDidCloseTextDocument((doc) => this.cache.forget(doc.uri.fsPath)));
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('agentRewind.blame.enabled')) return;
        this.on = enabled();
        this.ask();
      }),
    );
    this._register(vscode.languages.registerHoverProvider({ scheme: 'file' }, { provideHover: (doc, pos, token) => this.hover(doc, pos, token) }));
    this.ask();
  }

  /** The timeline grew or a session changed: what was read may be out of date. */
  changed(): void {
    this.cache.invalidate();
    this.ask();
  }

  private ask(): void {
    const editor = vscode.window.activeTextEditor;
    const doc = this.on && editor ? blameDocument(editor.document) : undefined;
    this.cursor.moved(doc, editor?.selection.active.line ?? 0);
  }

  private show(r: Parameters<ConstructorParameters<typeof CursorBlame>[1]>[0]): void {
    if (this.isDisposed) return;
    if (!r || !this.on) {
      this.item.hide();
      return;
    }
    const uri = vscode.Uri.file(r.doc.path);
    const t = lineBlameText(r.owner, new Date());
    this.item.text = t.status;
    const tooltip = new vscode.MarkdownString(lineBlameMarkdown(r.owner, new Date(), uri), true);
    tooltip.isTrusted = { enabledCommands: LINK_COMMANDS };
    this.item.tooltip = tooltip;
    this.item.command = t.prompt
      ? { command: 'agentRewind.openTranscript', title: 'Open the prompt', arguments: [t.prompt] }
      : { command: 'agentRewind.fileHistory', title: 'File History Across Agents', arguments: [uri] };
    this.item.show();
  }

  private async hover(doc: vscode.TextDocument, pos: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    const target = this.on ? blameDocument(doc) : undefined;
    if (!target) return undefined;
    const owner = await this.cache.ownerAt(target, pos.line);
    if (!owner || token.isCancellationRequested || !lineBlameText(owner, new Date()).byAgent) return undefined;
    const md = new vscode.MarkdownString(lineBlameMarkdown(owner, new Date(), doc.uri), true);
    md.isTrusted = { enabledCommands: LINK_COMMANDS };
    return new vscode.Hover(md);
  }
}
