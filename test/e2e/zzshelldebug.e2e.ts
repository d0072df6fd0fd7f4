import { after, before, describe, it } from 'node:test';
import { createBranchedSession, type BranchedSession } from '../../scripts/e2e/sessions.mjs';
import { sessionRow } from './support/agent-rewind';
import { e2eEnv } from './support/env';
import { openVsCode, type VsCode } from './support/vscode';
import { runCommand } from './support/workbench';

describe('shell debug', () => {
  let vs: VsCode | undefined;
  let s: BranchedSession;
  before(async () => {
    vs = await openVsCode({ name: 'dbg', prepare: ({ workspace, home }) => { s = createBranchedSession({ repo: e2eEnv().repo, home, workspace }); } });
  });
  after(async () => { await vs?.close(); });
  it('opens transcript', async () => {
    const page = vs!.page;
    const row = await sessionRow(page, s.title);
    await row.click({ button: 'right' });
    await page.waitForTimeout(1500);
    await page.screenshot({ path: '/tmp/dbg1.png' });
    const item = page.locator('.monaco-menu .action-item .action-label, .context-view .monaco-menu .action-label').filter({ hasText: /Open Transcript/ });
    console.log('menu items', await item.count());
    await item.first().click();
    await page.waitForTimeout(4000);
    await page.screenshot({ path: '/tmp/dbg2.png' });
    await runCommand(page, 'Agent Rewind: Open Transcript');
    await page.waitForTimeout(4000);
    await page.screenshot({ path: '/tmp/dbg3.png' });
    console.log(vs!.consoleLines.filter((l) => /error|agent/i.test(l)).join('\n'));
  });
});
