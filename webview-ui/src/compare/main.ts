// The Compare branches webview: renders the comparison the host computed; file rows ask the host to open VS Code's
// diff editor (a request, so a failure is shown here), messages ask it to open the transcript.
import '../common/base.css';
import '../common/file-changes.css';
import './compare.css';
import type { CompareResults, CompareToHost } from '../../../src/shared/protocol';
import { RequestClient } from '../../../src/shared/request-client';
import { compareToWebview } from '../../../src/shared/to-webview';
import type { BranchCompareModel } from '../../../src/shared/view-models';
import { actionTarget, connectToHost } from '../common/vscode-api';
import { renderCompare, renderLoadError, renderLoading, type CompareUiState } from './render';

const host = connectToHost<CompareToHost, typeof compareToWebview, Record<string, never>>(compareToWebview);
const requests = new RequestClient<CompareToHost, CompareResults>(host.post);
const app = document.getElementById('app')!;

let model: BranchCompareModel | undefined;
const ui: CompareUiState = {};

/** Re-renders, then puts the keyboard focus back on the same control. */
function render(): void {
  if (!model) return;
  const focused = document.activeElement as HTMLElement | null;
  const key = focused && app.contains(focused) ? { action: focused.dataset.action, path: focused.dataset.path, entryId: focused.dataset.entryId } : undefined;
  app.innerHTML = renderCompare(model, ui);
  if (!key?.action) return;
  const again = Array.from(app.querySelectorAll<HTMLElement>(`[data-action="${key.action}"]`)).find(
    (el) => el.dataset.path === key.path && el.dataset.entryId === key.entryId,
  );
  again?.focus();
}

host.onMessage((message) => {
  if (requests.handle(message)) return;
  switch (message.type) {
    case 'loading':
      model = undefined;
      app.innerHTML = renderLoading(message.branchA, message.branchB);
      break;
    case 'model':
      model = message.model;
      ui.opening = undefined;
      ui.diffError = undefined;
      render();
      break;
    case 'loadError':
      model = undefined;
      app.innerHTML = renderLoadError(message.message);
      break;
  }
});

app.addEventListener('click', (event) => {
  const el = actionTarget(event);
  if (!el) return;
  switch (el.dataset.action) {
    case 'open-diff': {
      const path = el.dataset.path ?? '';
      if (!path || ui.opening) return;
      ui.opening = path;
      ui.diffError = undefined;
      render();
      requests
        .request('openFileDiff', (requestId) => ({ type: 'openFileDiff', path, requestId }))
        .then(
          () => {
            ui.opening = undefined;
            render();
          },
          (error: Error) => {
            ui.opening = undefined;
            ui.diffError = error.message;
            render();
          },
        );
      break;
    }
    case 'open-message':
      host.post({ type: 'openMessage', entryId: el.dataset.entryId ?? '' });
      break;
    case 'swap':
      host.post({ type: 'swap' });
      break;
    case 'refresh':
      host.post({ type: 'refresh' });
      break;
  }
});

app.innerHTML = renderLoading();
host.post({ type: 'ready' });
