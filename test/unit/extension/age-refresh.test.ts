import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { refreshAgesWhileVisible } from '../../../src/extension/tree/age-refresh';

function fakeView(visible: boolean) {
  const listeners = new Set<(e: { visible: boolean }) => unknown>();
  const view = {
    visible,
    onDidChangeVisibility(l: (e: { visible: boolean }) => unknown) {
      listeners.add(l);
      return { dispose: () => void listeners.delete(l) };
    },
    set(v: boolean) {
      view.visible = v;
      for (const l of listeners) l({ visible: v });
    },
    get listeners() {
      return listeners.size;
    },
  };
  return view;
}

describe('refreshAgesWhileVisible', () => {
  it('refreshes every interval while visible, not while hidden, and once on becoming visible again', () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const view = fakeView(true);
      let refreshes = 0;
      const d = refreshAgesWhileVisible(view, () => refreshes++, 60_000);
      mock.timers.tick(59_999);
      assert.equal(refreshes, 0);
      mock.timers.tick(1);
      assert.equal(refreshes, 1);
      view.set(false);
      mock.timers.tick(180_000);
      assert.equal(refreshes, 1, 'nothing while hidden');
      view.set(true);
      assert.equal(refreshes, 2, 'the ages are brought up to date when it shows again');
      d.dispose();
      mock.timers.tick(180_000);
      assert.equal(refreshes, 2, 'disposed: no timer left');
      assert.equal(view.listeners, 0);
    } finally {
      mock.timers.reset();
    }
  });
});
