// The host side of the Rewind preview webview, without `vscode`: computes the dry run, answers Confirm by
// applying the rewind under a progress notification, then closes the preview and offers Undo. Nothing is
// written before Confirm. Every message from the webview is validated; malformed ones are ignored.
import { Disposable } from '../disposable';
import { parseMessage, previewToHostSchema, type PreviewToHost, type PreviewToWebview, type PreviewResults } from '../../shared/protocol';
import { responderFor } from '../../shared/request-client';
import type { HunkSelection, RewindOutcome, RewindPreviewModel } from '../../shared/view-models';
import { messageOf, type PanelUi } from './panel-ui';
import type { PreviewServices, SessionTarget } from './services';

/** Answers a request of this view with the result type its protocol declares for it. */
const respond = responderFor<PreviewResults>();

export const UNDO_COMMAND = 'agentRewind.undoLastRewind';
export const UNDO_ACTION = 'Undo';
/** Opens a terminal that resumes a fork of another agent's session (Claude Code, Codex) in its own CLI. */
export const CONTINUE_COMMAND = 'agentRewind.continueInAgent';

/** The one-line outcome shown in the notification after a rewind (it always starts with "Rewound"). */
export function rewindSummary(outcome: RewindOutcome, anchorPreview: string): string {
  const parts: string[] = [];
  if (outcome.branch) parts.push(`the conversation (now on branch "${outcome.branch.name}")`);
  if (outcome.fork) parts.push(`the conversation into a new ${outcome.fork.agent} session (${outcome.fork.sessionId.slice(0, 8)})`);
  if (outcome.mode !== 'conversation') {
    const n = outcome.filesChanged.length;
    parts.push(n === 0 ? 'no files (they were already as they were)' : `${n} ${n === 1 ? 'file' : 'files'}`);
  }
  const what = parts.length ? parts.join(' and ') : 'nothing';
  const short = anchorPreview.length > 60 ? `${anchorPreview.slice(0, 59)}…` : anchorPreview;
  const resend = outcome.fork?.promptText ? ' The message is on the clipboard, to send again there.' : '';
  return `Rewound ${what} to "${short}".${resend}`;
}

/** A model in which every part failed with the same reason (the services broke their never-throw promise). */
function failedModel(ref: SessionTarget, anchorEntryId: string, error: string): RewindPreviewModel {
  return {
    sessionId: '',
    anchorEntryId,
    anchorPreview: `Message ${anchorEntryId} in ${ref.sessionRef}`,
    conversation: { ok: false, error },
    state: { ok: false, error },
    files: { ok: false, error },
  };
}

export class RewindPreviewController extends Disposable {
  private model: RewindPreviewModel | undefined;
  private computing: Promise<void> | undefined;
  private ready = false;
  private applying = false;

  constructor(
    private ref: SessionTarget,
    private anchorEntryId: string,
    private readonly services: PreviewServices,
    private readonly post: (message: PreviewToWebview) => unknown,
    private readonly ui: PanelUi,
    /** Closes the preview panel (after Cancel, or after a rewind). */
    private readonly close: () => void,
  ) {
    super();
  }

  get target(): { ref: SessionTarget; anchorEntryId: string } {
    return { ref: this.ref, anchorEntryId: this.anchorEntryId };
  }

  /** Shows the preview of another message in the same panel. */
  retarget(ref: SessionTarget, anchorEntryId: string): Promise<void> {
    this.ref = ref;
    this.anchorEntryId = anchorEntryId;
    this.model = undefined;
    return this.compute();
  }

  async handle(raw: unknown): Promise<void> {
    const message = parseMessage(previewToHostSchema, raw);
    if (!message || this.isDisposed) return;
    await this.dispatch(message);
  }

  private compute(): Promise<void> {
    const { ref, anchorEntryId } = this;
    if (this.ready) this.post({ type: 'loading' });
    this.computing = (async () => {
      let model: RewindPreviewModel;
      try {
        model = await this.services.preview(ref, anchorEntryId);
      } catch (error) {
        model = failedModel(ref, anchorEntryId, messageOf(error));
      }
      // A retarget while this was running wins.
      if (ref !== this.ref || anchorEntryId !== this.anchorEntryId || this.isDisposed) return;
      this.model = model;
      if (this.ready) this.post({ type: 'model', model });
    })();
    return this.computing;
  }

  private async dispatch(message: PreviewToHost): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        if (this.model) this.post({ type: 'model', model: this.model });
        else if (this.computing) {
          this.post({ type: 'loading' });
          await this.computing;
        } else await this.compute();
        return;
      case 'refresh':
        return this.compute();
      case 'cancel':
        this.close();
        return;
      case 'openFileDiff': {
        // Only the files this preview lists: the path is never used to reach anything else.
        const listed = this.model?.files.ok && this.model.files.files.some((f) => f.path === message.path);
        if (!listed) return;
        try {
          await this.services.openFileDiff(this.ref, this.anchorEntryId, message.path);
        } catch (error) {
          this.ui.showError(`Could not open the diff of ${message.path}: ${messageOf(error)}`);
        }
        return;
      }
      case 'previewSelection':
        return this.previewSelection(message.requestId, message.only, message.hunks);
      case 'fileHunks':
        return this.fileHunks(message.requestId, message.path);
      case 'confirm':
        return this.confirm(message.requestId, message.mode, message.overwriteUserModified, message.only, message.hunks);
      case 'editorChat':
        // only what this preview offered
        if (!this.model?.editorChat) return;
        try {
          await this.services.editorChat(this.ref, this.anchorEntryId, message.action);
        } catch (error) {
          this.ui.showError(
            `Could not ${message.action === 'open' ? 'open the session in' : 'run Restore Checkpoint in'} ${this.model.editorChat.agent}: ${messageOf(error)}`,
          );
        }
        return;
    }
  }

  /** The files a selection may name: those this preview lists, so a path never reaches anything else. */
  private unlisted(only: readonly string[]): string | undefined {
    const listed = new Set(this.model?.files.ok ? this.model.files.files.map((f) => f.path) : []);
    return only.find((p) => !listed.has(p));
  }

  private async fileHunks(requestId: number, path: string): Promise<void> {
    const { ref, anchorEntryId } = this;
    const stray = this.model ? this.unlisted([path]) : undefined;
    if (!this.model || stray !== undefined) {
      const error = stray === undefined ? 'The preview is not ready yet.' : `${stray} is not one of the files this preview lists.`;
      this.post(respond({ type: 'fileHunks', requestId }, { ok: false, error }));
      return;
    }
    try {
      const result = await this.services.fileHunks(ref, anchorEntryId, path);
      if (!this.isDisposed) this.post(respond({ type: 'fileHunks', requestId }, { ok: true, result }));
    } catch (error) {
      if (!this.isDisposed) this.post(respond({ type: 'fileHunks', requestId }, { ok: false, error: messageOf(error) }));
    }
  }

  private async previewSelection(requestId: number, only: string[], hunks: HunkSelection[] | undefined): Promise<void> {
    const { ref, anchorEntryId } = this;
    const stray = this.model ? this.unlisted([...only, ...(hunks ?? []).map((h) => h.path)]) : undefined;
    if (!this.model || stray !== undefined) {
      const error = stray === undefined ? 'The preview is not ready yet.' : `${stray} is not one of the files this preview lists.`;
      this.post(respond({ type: 'previewSelection', requestId }, { ok: false, error }));
      return;
    }
    try {
      const result = await this.services.previewSelection(ref, anchorEntryId, only, hunks);
      if (!this.isDisposed) this.post(respond({ type: 'previewSelection', requestId }, { ok: true, result }));
    } catch (error) {
      if (!this.isDisposed) this.post(respond({ type: 'previewSelection', requestId }, { ok: false, error: messageOf(error) }));
    }
  }

  private async confirm(
    requestId: number,
    mode: Extract<PreviewToHost, { type: 'confirm' }>['mode'],
    overwriteUserModified: boolean,
    only: string[] | undefined,
    hunks: HunkSelection[] | undefined,
  ): Promise<void> {
    if (this.applying) {
      this.post(respond({ type: 'confirm', requestId }, { ok: false, error: 'A rewind is already running.' }));
      return;
    }
    if (!this.model) {
      this.post(respond({ type: 'confirm', requestId }, { ok: false, error: 'The preview is not ready yet.' }));
      return;
    }
    const stray = only || hunks ? this.unlisted([...(only ?? []), ...(hunks ?? []).map((h) => h.path)]) : undefined;
    if (stray !== undefined) {
      this.post(respond({ type: 'confirm', requestId }, { ok: false, error: `${stray} is not one of the files this preview lists.` }));
      return;
    }
    const { ref, anchorEntryId, model } = this;
    this.applying = true;
    let outcome: RewindOutcome;
    try {
      outcome = await this.ui.withProgress('Rewinding…', () =>
        this.services.apply(ref, anchorEntryId, mode, { overwriteUserModified, ...(only ? { only } : {}), ...(hunks ? { hunks } : {}) }),
      );
    } catch (error) {
      this.applying = false;
      if (!this.isDisposed) this.post(respond({ type: 'confirm', requestId }, { ok: false, error: messageOf(error) }));
      return;
    }
    this.applying = false;
    const summary = rewindSummary(outcome, model.anchorPreview);
    if (!this.isDisposed) this.post(respond({ type: 'confirm', requestId }, { ok: true, result: { summary } }));
    this.close();
    // A diff opened from this preview would go on showing the files before the rewind as "now".
    await this.services.closeFileDiffs(ref, anchorEntryId).catch(() => undefined);
    // The notification says exactly what its Undo button will do (files, branch, or both).
    const undo = await this.services.describeUndo(ref).catch(() => undefined);
    const fork = outcome.fork;
    if (fork?.promptText) await this.ui.copyToClipboard(fork.promptText).catch(() => undefined);
    const continueAction = fork ? `Continue in ${fork.agent}` : undefined;
    const text = undo ? `${summary} ${undo}` : summary;
    const choice = await this.ui.showInfo(text, ...(continueAction ? [continueAction] : []), ...(undo || outcome.undoAvailable ? [UNDO_ACTION] : []));
    if (choice === UNDO_ACTION) await this.ui.executeCommand(UNDO_COMMAND, { sessionRef: ref.sessionRef });
    if (fork && choice === continueAction)
      await this.ui.executeCommand(CONTINUE_COMMAND, { sessionRef: fork.sessionRef, agent: fork.agent, resumeCommand: fork.resumeCommand });
  }
}
