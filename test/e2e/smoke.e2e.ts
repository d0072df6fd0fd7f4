// Smoke: real VS Code starts with the packaged extension, which starts with the window (its checkpoint service
// serves the folder before any of its views is shown), and shows the "Agent Rewind" activity-bar entry and its
// Sessions view.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { e2eEnv } from './support/env';
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

  // VS Code chat without hooks is snapshotted by the extension alone: it must run from the window's start, not from the
  // first time its sidebar is shown (until then, 0 of 12 requests were snapshotted in the no-hooks lag flow)
  it('starts with the window: its checkpoint service serves the folder before any Agent Rewind view is shown', async () => {
    const status = () => {
      const r = spawnSync(process.execPath, [join(e2eEnv().repo, 'dist', 'cli.js'), 'serve', '--status', '--json'], {
        encoding: 'utf8',
        env: { ...process.env, AGENT_REWIND_HOME: vs!.home },
      });
      return JSON.parse(r.stdout || '{}') as { running?: boolean; origin?: string; workspaces?: string[] };
    };
    let last = status();
    for (let i = 0; i < 60 && !(last.running && last.origin === 'extension'); i++) {
      await sleep(500);
      last = status();
    }
    assert.equal(last.origin, 'extension', `no service of the extension host: ${JSON.stringify(last)}`);
    assert.ok(last.workspaces?.length, `it serves no folder: ${JSON.stringify(last)}`);
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
