// Keeps the Sessions view's relative times ("3 min ago") true: the tree is refreshed every `intervalMs` while it is
// visible, and once when it becomes visible again (it was not refreshed while hidden). No `vscode` import, so it is
// tested in Node with fake timers.
import type { DisposableLike } from '../disposable';

export interface VisibleView {
  readonly visible: boolean;
  onDidChangeVisibility(listener: (e: { visible: boolean }) => unknown): DisposableLike;
}

export function refreshAgesWhileVisible(view: VisibleView, refresh: () => void, intervalMs: number): DisposableLike {
  const timer = setInterval(() => {
    if (view.visible) refresh();
  }, intervalMs);
  let shown = view.visible;
  const listener = view.onDidChangeVisibility((e) => {
    if (e.visible && !shown) refresh();
    shown = e.visible;
  });
  return {
    dispose: () => {
      clearInterval(timer);
      listener.dispose();
    },
  };
}
