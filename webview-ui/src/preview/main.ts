// The Rewind preview webview: shows the dry run the host computed; only Confirm asks the host to act.
import '../common/base.css';
import '../common/file-changes.css';
import './preview.css';
import type { PreviewResults, PreviewToHost } from '../../../src/shared/protocol';
import { RequestClient } from '../../../src/shared/request-client';
import { previewToWebview } from '../../../src/shared/to-webview';
import { isRewindMode, type RewindMode, type RewindPreviewModel } from '../../../src/shared/view-models';
import { actionTarget, connectToHost } from '../common/vscode-api';
import { renderLoading, renderPreview } from './render';
import type { PreviewUiState } from './view-state';
import { effectiveMode, sameSelection, selectionOf, tickedHunks } from './view-state';

interface SavedState {
  mode: RewindMode | null;
  overwriteUserModified: boolean;
}

const host = connectToHost<PreviewToHost, typeof previewToWebview, SavedState>(previewToWebview);
const requests = new RequestClient<PreviewToHost, PreviewResults>(host.post);
const saved = host.getState();
const app = document.getElementById('app')!;

let model: RewindPreviewModel | undefined;
/** The first model takes the keyboard focus (later ones keep it where it is). */
let focusedOnce = false;
const ui: PreviewUiState = { mode: saved?.mode ?? null, overwriteUserModified: saved?.overwriteUserModified ?? false, busy: false, picks: {} };

/** Re-renders everything, then puts the keyboard focus back on the same control. */
function render(): void {
  if (!model) {
    app.innerHTML = renderLoading();
    return;
  }
  const focused = document.activeElement as HTMLElement | null;
  const focusKey = focused?.id || (focused?.dataset.action ? `[data-action="${focused.dataset.action}"]` : '');
  const path = focused?.dataset.path;
  const hunk = focused?.dataset.hunk;
  app.innerHTML = renderPreview(model, ui);
  // a file's tick is mixed while only some of its hunks are ticked (a state HTML can only set from script)
  for (const tick of app.querySelectorAll<HTMLInputElement>('input[data-mixed]')) tick.indeterminate = true;
  const again = focusKey.startsWith('[')
    ? Array.from(app.querySelectorAll<HTMLElement>(focusKey)).find((el) => el.dataset.path === path && el.dataset.hunk === hunk)
    : focusKey
      ? document.getElementById(focusKey)
      : null;
  again?.focus();
  if (!focusedOnce) {
    focusedOnce = true;
    // The preview opens as a dialog does: focus on its first control, so Tab, Space and Escape work at once.
    firstControl()?.focus();
  }
  host.setState({ mode: ui.mode, overwriteUserModified: ui.overwriteUserModified });
}

/** The first enabled control: the chosen "What to rewind" option, else the first button that does something. */
function firstControl(): HTMLElement | null {
  return (
    app.querySelector<HTMLElement>('input[name="mode"]:checked:not(:disabled)') ??
    app.querySelector<HTMLElement>('.buttons button:not(:disabled), input:not(:disabled), button:not(:disabled)')
  );
}

host.onMessage((message) => {
  if (requests.handle(message)) return;
  switch (message.type) {
    case 'loading':
      model = undefined;
      render();
      break;
    case 'model':
      model = message.model;
      ui.busy = false;
      ui.applyError = undefined;
      // A new dry run (another message, a refresh) lists its own files: earlier ticks no longer say anything, and
      // hunks shown before may be of other bytes.
      ui.picks = {};
      ui.selection = undefined;
      ui.expanded = {};
      ui.hunks = {};
      ui.hunkPicks = {};
      render();
      break;
  }
});

/** Asks the host for the dry run of the ticked files when the ticks differ from the default (the preview says what
 *  Confirm will do); the answer for a selection the user has changed since is dropped. */
function previewSelection(): void {
  if (!model) return;
  const chosen = selectionOf(model, ui);
  // Asked already (the answer is on its way, or here): nothing to ask again.
  if (!chosen || (ui.selection && sameSelection(ui.selection, chosen))) return;
  const asked = { ...chosen };
  ui.selection = asked;
  requests
    .request('previewSelection', (requestId) => ({ type: 'previewSelection', ...chosen, requestId }))
    .then(
      (result) => ({ result }),
      (error: Error) => ({ error: error.message }),
    )
    .then((answer) => {
      if (ui.selection !== asked) return;
      ui.selection = { ...chosen, ...answer };
      render();
    });
}

/** Shows or hides a file's hunks, asking the host for them the first time. */
function toggleHunks(path: string): void {
  const open = !ui.expanded?.[path];
  ui.expanded = { ...ui.expanded, [path]: open };
  if (open && ui.hunks?.[path] === undefined) {
    const shownFor = model;
    ui.hunks = { ...ui.hunks, [path]: 'loading' };
    requests
      .request('fileHunks', (requestId) => ({ type: 'fileHunks', path, requestId }))
      .then(
        (result) => result,
        (error: Error) => ({ path, error: error.message }),
      )
      .then((answer) => {
        if (model !== shownFor) return; // a new dry run since: its rows start closed
        ui.hunks = { ...ui.hunks, [path]: answer };
        render();
      });
  }
  render();
}

/** Ticks or unticks one hunk of a file: from then on the file's hunks are ticked one by one. */
function tickHunk(path: string, index: number, checked: boolean): void {
  const file = model?.files.ok ? model.files.files.find((f) => f.path === path) : undefined;
  if (!model || !file) return;
  const now = new Set(tickedHunks(model, ui, file));
  if (checked) now.add(index);
  else now.delete(index);
  ui.hunkPicks = { ...ui.hunkPicks, [path]: [...now].sort((a, b) => a - b) };
}

app.addEventListener('change', (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement)) return;
  if (input.name === 'mode') {
    if (isRewindMode(input.value)) ui.mode = input.value;
  } else if (input.id === 'overwrite-user-modified') {
    ui.overwriteUserModified = input.checked;
    // The box speaks for every file changed by hand: it replaces their single ticks.
    if (model?.files.ok)
      for (const f of model.files.files)
        if (f.userModified) {
          if (ui.picks) delete ui.picks[f.path];
          if (ui.hunkPicks) delete ui.hunkPicks[f.path];
        }
  } else if (input.dataset.action === 'tick' && input.dataset.path) {
    // the file's tick speaks for all of its hunks
    const path = input.dataset.path;
    ui.picks = { ...ui.picks, [path]: input.checked };
    if (ui.hunkPicks?.[path]) {
      const { [path]: _dropped, ...rest } = ui.hunkPicks;
      ui.hunkPicks = rest;
    }
  } else if (input.dataset.action === 'hunk-tick' && input.dataset.path && input.dataset.hunk)
    tickHunk(input.dataset.path, Number(input.dataset.hunk), input.checked);
  else return;
  ui.applyError = undefined;
  previewSelection();
  render();
});

app.addEventListener('click', (event) => {
  const el = actionTarget(event);
  if (!el || !model || ui.busy) return;
  switch (el.dataset.action) {
    case 'open-diff':
      host.post({ type: 'openFileDiff', path: el.dataset.path ?? '' });
      break;
    case 'toggle-hunks':
      if (el.dataset.path) toggleHunks(el.dataset.path);
      break;
    case 'cancel':
      host.post({ type: 'cancel' });
      break;
    case 'refresh':
      host.post({ type: 'refresh' });
      break;
    case 'editor-chat-open':
      host.post({ type: 'editorChat', action: 'open' });
      break;
    case 'editor-chat-restore':
      host.post({ type: 'editorChat', action: 'restoreCheckpoint' });
      break;
    case 'confirm': {
      const mode = effectiveMode(model, ui.mode);
      if (!mode) return;
      ui.busy = true;
      ui.applyError = undefined;
      render();
      requests
        .request('confirm', (requestId) => {
          const chosen = selectionOf(model!, ui);
          return { type: 'confirm', mode, overwriteUserModified: ui.overwriteUserModified, ...chosen, requestId };
        })
        .then(
          // The host closes this panel after a rewind; until then, say it worked.
          (r) => {
            app.querySelector('[data-action="confirm"]')!.textContent = r.summary;
          },
          (error: Error) => {
            ui.busy = false;
            ui.applyError = error.message;
            render();
          },
        );
      break;
    }
  }
});

// Escape is Cancel: the preview closes and nothing changes (not while a rewind is running).
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || event.defaultPrevented || ui.busy) return;
  event.preventDefault();
  host.post({ type: 'cancel' });
});

render();
host.post({ type: 'ready' });
