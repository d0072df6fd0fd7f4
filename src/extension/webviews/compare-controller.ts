// The host side of the Compare branches webview, without `vscode`: computes the comparison, sends it after the
// webview's `ready`, recomputes when the session file changes, and opens the diff editor or the transcript for the
// files and messages the comparison lists (and nothing else). Every message from the webview is validated;
// malformed ones are ignored.
import { Disposable, type DisposableLike } from '../disposable';
import { compareToHostSchema, parseMessage, type CompareToHost, type CompareToWebview, type CompareResults } from '../../shared/protocol';
import { responderFor } from '../../shared/request-client';
import type { BranchCompareModel } from '../../shared/view-models';
import { messageOf, type PanelUi } from './panel-ui';
import type { CompareRef, CompareServices } from './services';

/** Answers a request of this view with the result type its protocol declares for it. */
const respond = responderFor<CompareResults>();

export interface CompareControllerOptions {
  /** Called with every model computed (the panel sets its title from it). */
  onModel?(model: BranchCompareModel): void;
  /** Appends come in bursts: changes within this window are compared once. */
  refreshDelayMs?: number;
}

export class CompareController extends Disposable {
  private model: BranchCompareModel | undefined;
  private loadError: string | undefined;
  private ready = false;
  private computing: Promise<void> | undefined;
  private generation = 0;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private watching: DisposableLike | undefined;

  constructor(
    private ref: CompareRef,
    private readonly services: CompareServices,
    private readonly post: (message: CompareToWebview) => unknown,
    private readonly ui: PanelUi,
    private readonly options: CompareControllerOptions = {},
  ) {
    super();
    this.watch();
    this._register({ dispose: () => clearTimeout(this.refreshTimer) });
    this._register({ dispose: () => this.watching?.dispose() });
  }

  get target(): CompareRef {
    return this.ref;
  }

  /** Compares another pair (or another session's) in the same panel. */
  retarget(ref: CompareRef): Promise<void> {
    const sameFiles = ref.sessionRef === this.ref.sessionRef && ref.sessionRefB === this.ref.sessionRefB;
    this.ref = ref;
    if (!sameFiles) this.watch();
    this.model = undefined;
    return this.compute();
  }

  async handle(raw: unknown): Promise<void> {
    const message = parseMessage(compareToHostSchema, raw);
    if (!message || this.isDisposed) return;
    await this.dispatch(message);
  }

  /** Computes the comparison again now. */
  compute(): Promise<void> {
    clearTimeout(this.refreshTimer);
    const generation = ++this.generation;
    const ref = this.ref;
    if (this.ready) this.post({ type: 'loading', branchA: ref.branchA, branchB: ref.branchB });
    this.computing = (async () => {
      let model: BranchCompareModel | undefined;
      let error: string | undefined;
      try {
        model = await this.services.compare(ref);
      } catch (e) {
        error = `Could not compare "${ref.branchA}" with "${ref.branchB}": ${messageOf(e)}`;
      }
      // A newer computation (a retarget, a swap, a change on disk) wins.
      if (generation !== this.generation || this.isDisposed) return;
      this.model = model;
      this.loadError = error;
      if (model) this.options.onModel?.(model);
      this.sendCurrent();
    })();
    return this.computing;
  }

  /** Both sessions when B is of another one: an append to either changes the comparison. */
  private watch(): void {
    this.watching?.dispose();
    const files = [this.ref.sessionRef, ...(this.ref.sessionRefB && this.ref.sessionRefB !== this.ref.sessionRef ? [this.ref.sessionRefB] : [])];
    const subscriptions = files.map((sessionRef) => this.services.onDidChangeSession({ sessionRef }, () => this.scheduleRefresh()));
    this.watching = { dispose: () => subscriptions.forEach((d) => d.dispose()) };
  }

  private scheduleRefresh(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.compute(), this.options.refreshDelayMs ?? 200);
  }

  private sendCurrent(): void {
    if (!this.ready || this.isDisposed) return;
    if (this.loadError !== undefined) this.post({ type: 'loadError', message: this.loadError });
    else if (this.model) this.post({ type: 'model', model: this.model });
  }

  private async dispatch(message: CompareToHost): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        if (this.model || this.loadError !== undefined) this.sendCurrent();
        else if (this.computing) {
          this.post({ type: 'loading', branchA: this.ref.branchA, branchB: this.ref.branchB });
          await this.computing;
        } else await this.compute();
        return;
      case 'refresh':
        return this.compute();
      case 'swap': {
        const { sessionRef, sessionRefB, branchA, branchB } = this.ref;
        const sessions = sessionRefB !== undefined && sessionRefB !== sessionRef ? { sessionRef: sessionRefB, sessionRefB: sessionRef } : { sessionRef };
        return this.retarget({ ...sessions, branchA: branchB, branchB: branchA });
      }
      case 'openMessage': {
        // Only messages this comparison shows: the id is never used to reach anything else. A message listed on a side
        // opens in that side's session; where they part is in both (A's is opened).
        const m = this.model;
        if (!m) return;
        const side = [m.a, m.b].find((s) => s.messages.some((x) => x.entryId === message.entryId));
        if (!side && m.divergence?.entryId !== message.entryId) return;
        try {
          await this.services.openMessage({ sessionRef: side?.session?.sessionRef ?? m.a.session?.sessionRef ?? m.sessionRef }, message.entryId);
        } catch (error) {
          this.ui.showError(`Could not open the message: ${messageOf(error)}`);
        }
        return;
      }
      case 'openFileDiff':
        return this.openFileDiff(message.requestId, message.path);
    }
  }

  private async openFileDiff(requestId: number, path: string): Promise<void> {
    const m = this.model;
    // Only the files this comparison lists, between the two snapshots it names.
    const listed = m?.files.ok && m.files.files.some((f) => f.path === path);
    if (!m || !listed || !m.a.snapshot || !m.b.snapshot) {
      this.post(respond({ type: 'openFileDiff', requestId }, { ok: false, error: `${path} is not one of the files this comparison lists.` }));
      return;
    }
    try {
      await this.services.openBranchFileDiff(
        { sessionRef: m.a.session?.sessionRef ?? m.sessionRef, branch: m.a.name, anchorEntryId: m.a.snapshot.anchorEntryId },
        { sessionRef: m.b.session?.sessionRef ?? m.sessionRef, branch: m.b.name, anchorEntryId: m.b.snapshot.anchorEntryId },
        path,
      );
      if (!this.isDisposed) this.post(respond({ type: 'openFileDiff', requestId }, { ok: true, result: { opened: path } }));
    } catch (error) {
      if (!this.isDisposed)
        this.post(respond({ type: 'openFileDiff', requestId }, { ok: false, error: `Could not open the diff of ${path}: ${messageOf(error)}` }));
    }
  }
}
