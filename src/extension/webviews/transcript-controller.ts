// The host side of one Transcript webview, without `vscode`: holds the transcript rows, answers the webview's
// page requests, relays its actions to the services, and tells it when the session changed. Every message from
// the webview is validated; malformed ones are ignored.
import { Disposable } from '../disposable';
import { parseMessage, transcriptToHostSchema, type TranscriptToHost, type TranscriptToWebview, type TranscriptResults } from '../../shared/protocol';
import { responderFor } from '../../shared/request-client';
import type { TranscriptItem, TranscriptModel } from '../../shared/view-models';
import { messageOf, type PanelUi } from './panel-ui';
import type { SessionTarget, TranscriptServices } from './services';

/** What the transcript says after a switch: the conversation moved, the files did not (a user finds a transcript ending
 *  in "Added test/app.test.js." while test/ does not exist otherwise). */
export function switchedBranchNotice(branch: string): string {
  return `Now on branch "${branch}". Files were not changed: they stay as they are now (Rewind to here on one of its messages puts them back as they were then).`;
}

/** Answers a request of this view with the result type its protocol declares for it. */
const respond = responderFor<TranscriptResults>();

export interface TranscriptControllerOptions {
  /** Called with every model loaded (the panel sets its title from it). */
  onModel?(model: TranscriptModel): void;
  /** Appends often come in bursts: changes within this window are loaded once. */
  refreshDelayMs?: number;
}

export class TranscriptController extends Disposable {
  private items: TranscriptItem[] = [];
  private model: TranscriptModel | undefined;
  private loadError: string | undefined;
  private version = 0;
  private ready = false;
  private loading: Promise<void> | undefined;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  /** A message to show once the webview is ready and the transcript is loaded (the latest request wins). */
  private pendingReveal: string | undefined;
  /** The webview was told this message is on another branch: switching to that branch shows it there. */
  private revealAfterSwitch: { entryId: string; branch: string } | undefined;
  /** Counts reveal requests, so an answer that arrives after a newer request is dropped. */
  private revealRequests = 0;
  /** A branch shown without switching to it (a click on a branch only shows it; another agent's session is never
   *  switched at all). Undefined: the active branch, followed as it moves. */
  private shownBranch: string | undefined;

  constructor(
    readonly ref: SessionTarget,
    private readonly services: TranscriptServices,
    private readonly post: (message: TranscriptToWebview) => unknown,
    private readonly ui: PanelUi,
    private readonly options: TranscriptControllerOptions = {},
  ) {
    super();
    this._register(services.onDidChangeSession(ref, () => this.scheduleRefresh()));
    this._register({ dispose: () => clearTimeout(this.refreshTimer) });
  }

  /** Entry point for everything the webview posts. */
  async handle(raw: unknown): Promise<void> {
    const message = parseMessage(transcriptToHostSchema, raw);
    if (!message || this.isDisposed) return;
    await this.dispatch(message);
  }

  /**
   * Scrolls the webview to a message and highlights it, or says which branch it is on. Honours the ready
   * handshake: asked before the webview is ready or before the transcript is loaded, it is delivered after both.
   */
  async reveal(entryId: string): Promise<void> {
    if (this.isDisposed) return;
    this.revealRequests++;
    this.revealAfterSwitch = undefined;
    this.pendingReveal = entryId;
    // A load on its way delivers the reveal when it ends (when the webview is ready by then).
    if (this.loading) await this.loading;
    else await this.deliverReveal();
  }

  /** Shows a branch of the session without switching to it (nothing is written). */
  showBranch(name: string): Promise<void> {
    this.shownBranch = name;
    return this.refresh();
  }

  /** Loads the transcript again now (the panel calls it at once, so its title is right before the webview runs). */
  refresh(): Promise<void> {
    clearTimeout(this.refreshTimer);
    const run = (this.loading ?? Promise.resolve()).then(() => this.load());
    this.loading = run;
    void run.finally(() => {
      if (this.loading === run) this.loading = undefined;
    });
    return run;
  }

  private scheduleRefresh(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.refresh(), this.options.refreshDelayMs ?? 150);
  }

  private async load(): Promise<void> {
    if (this.isDisposed) return;
    try {
      const { model, items } = await this.services.loadTranscript(this.ref, this.shownBranch !== undefined ? { branch: this.shownBranch } : {});
      // Showing the active branch (it became active, or is gone): follow the active branch from now on.
      if (model.branch === model.activeBranch) this.shownBranch = undefined;
      this.items = items;
      this.model = { ...model, total: items.length };
      this.loadError = undefined;
      this.version++;
      this.options.onModel?.(this.model);
    } catch (error) {
      this.loadError = `The transcript of ${this.ref.sessionRef} could not be read: ${messageOf(error)}`;
    }
    await this.sendCurrent();
  }

  private async sendCurrent(): Promise<void> {
    if (!this.ready || this.isDisposed) return;
    if (this.loadError) this.post({ type: 'loadError', message: this.loadError });
    else if (this.model) {
      this.post({ type: 'model', version: this.version, model: this.model, sessionRef: this.ref.sessionRef });
      await this.deliverReveal();
    }
  }

  /** Sends the pending reveal when the webview can take it (ready, and the model it refers to sent). */
  private async deliverReveal(): Promise<void> {
    const entryId = this.pendingReveal;
    if (entryId === undefined || !this.ready || !this.model || this.loadError || this.isDisposed) return;
    this.pendingReveal = undefined;
    await this.revealNow(entryId, this.revealRequests, false);
  }

  private async revealNow(entryId: string, request: number, reloaded: boolean): Promise<void> {
    const index = this.items.findIndex((i) => i.entryId === entryId);
    if (index >= 0) {
      this.revealAfterSwitch = undefined;
      this.post({ type: 'revealEntry', entryId, version: this.version, target: { on: 'activeBranch', index } });
      return;
    }
    let location;
    try {
      location = await this.services.locateEntry(this.ref, entryId);
    } catch (error) {
      return this.notice(`Could not find message ${entryId}: ${messageOf(error)}`);
    }
    const superseded = () => this.isDisposed || request !== this.revealRequests;
    if (superseded()) return;
    if (!location.found) return this.notice(`Message ${entryId} is not in this session (any more).`);
    if (location.onActiveBranch) {
      // The file moved on since the transcript was loaded (the message was just appended): load, then look once more.
      if (reloaded) return this.notice(`Message ${entryId} is not shown in the transcript (it is not a chat message).`, 'info');
      await this.refresh();
      if (!superseded()) await this.revealNow(entryId, request, true);
      return;
    }
    if (location.branch === undefined) {
      this.post({ type: 'revealEntry', entryId, version: this.version, target: { on: 'noBranch', preview: location.preview } });
      return;
    }
    this.revealAfterSwitch = { entryId, branch: location.branch };
    this.post({
      type: 'revealEntry',
      entryId,
      version: this.version,
      target: { on: 'otherBranch', branch: location.branch, activeBranch: location.activeBranch, preview: location.preview },
    });
  }

  private findItem(entryId: string): TranscriptItem | undefined {
    return this.items.find((i) => i.entryId === entryId);
  }

  private notice(message: string, severity: 'info' | 'error' = 'error'): void {
    if (!this.isDisposed) this.post({ type: 'notice', message, severity });
  }

  private async dispatch(message: TranscriptToHost): Promise<void> {
    switch (message.type) {
      case 'ready':
        // A webview that was hidden and shown again starts from scratch and says ready again.
        this.ready = true;
        // A load on its way sends the model when it ends (ready is set now); otherwise send or load it.
        if (this.loading) await this.loading;
        else if (!this.model && !this.loadError) await this.refresh();
        else await this.sendCurrent();
        return;
      case 'rows': {
        const start = Math.min(message.start, this.items.length);
        const items = this.items.slice(start, start + message.count);
        this.post(respond(message, { ok: true, result: { version: this.version, start, items } }));
        return;
      }
      case 'copyId':
        try {
          await this.ui.copyToClipboard(message.entryId);
          this.post(respond(message, { ok: true, result: { copied: message.entryId } }));
        } catch (error) {
          this.post(respond(message, { ok: false, error: `Could not copy the id: ${messageOf(error)}` }));
        }
        return;
      case 'rewindToHere': {
        const item = this.findItem(message.entryId);
        if (!item) return this.notice('That message is no longer on this branch. The transcript was refreshed.');
        if (item.kind !== 'user') return this.notice('Only a message you sent can be rewound to.');
        await this.run(() => this.services.previewRewind(this.ref, message.entryId), 'Could not open the rewind preview');
        return;
      }
      case 'fork':
      case 'label': {
        if (!this.findItem(message.entryId)) return this.notice('That message is no longer on this branch. The transcript was refreshed.');
        const action = message.type === 'fork' ? this.services.fork : this.services.label;
        await this.run(() => action.call(this.services, this.ref, message.entryId), message.type === 'fork' ? 'Could not fork' : 'Could not label the message');
        return;
      }
      case 'compareBranches':
        await this.run(() => this.services.compareBranches(this.ref, this.model?.branch), 'Could not compare branches');
        return;
      case 'showBranch':
      case 'switchBranch': {
        // The branch a revealed message is on is offered too, though it may leave the tree far from this transcript;
        // and the active branch, to go back to, and the branch shown, to switch to.
        const revealing = this.revealAfterSwitch?.branch === message.branch ? this.revealAfterSwitch : undefined;
        const known =
          revealing !== undefined ||
          message.branch === this.model?.activeBranch ||
          message.branch === this.model?.branch ||
          this.items.some((i) => i.otherBranches?.some((b) => b.name === message.branch));
        if (!known) return this.notice(`There is no branch "${message.branch}" here any more.`);
        let done: boolean;
        if (message.type === 'showBranch' || this.model?.readOnly) {
          // Nothing is written: the transcript shows that branch (another agent's session is never switched).
          this.shownBranch = message.branch;
          done = true;
        } else {
          done = await this.run(() => this.services.switchBranch(this.ref, message.branch), `Could not switch to branch "${message.branch}"`);
          if (done) {
            this.shownBranch = undefined;
            this.notice(switchedBranchNotice(message.branch), 'info');
          }
        }
        if (done && revealing) {
          this.revealAfterSwitch = undefined;
          this.revealRequests++;
          this.pendingReveal = revealing.entryId;
        }
        // The change event refreshes too; this makes the switch (and the message) visible at once.
        return this.refresh();
      }
    }
  }

  /** Runs a service call; a failure becomes a notice. Whether it succeeded. */
  private async run(task: () => Promise<void>, failure: string): Promise<boolean> {
    try {
      await task();
      return true;
    } catch (error) {
      this.notice(`${failure}: ${messageOf(error)}`);
      return false;
    }
  }
}
