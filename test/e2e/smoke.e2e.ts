// Smoke: real VS Code starts with the packaged extension and shows the "Agent Rewind" activity-bar entry and
// its Sessions view.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { keyMomentScreenshot, openVsCode, withArtifacts, type VsCode } from './support/vscode';
import { activityBarItem, openAgentRewind } from './support/workbench';

describe('smoke: the workbench loads with Agent Rewind', () => {
  let vs: VsCode | undefined;
  before(async () => {
    vs = await openVsCode({ name: 'smoke' });
  });
  after(async () => {
    await vs?.close();
  });

  it('shows the "Agent Rewind" activity-bar entry and its Sessions view', () =>
    withArtifacts(
      () => vs,
      'smoke activity bar',
      async () => {
        const page = vs!.page;
        await activityBarItem(page, 'Agent Rewind').waitFor({ state: 'visible', timeout: 30_000 });
        const pane = await openAgentRewind(page);
        assert.ok(await pane.locator('.pane-body').isVisible(), 'the Sessions view is shown');
        const title = await page.locator('.part.sidebar .composite.title').first().textContent();
        assert.match(title ?? '', /Agent Rewind/i, 'the side bar is titled Agent Rewind');
        await keyMomentScreenshot(vs!, 'smoke-sidebar');
      },
    ));
});
