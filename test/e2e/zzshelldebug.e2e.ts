import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createBranchedSession, type BranchedSession } from '../../scripts/e2e/sessions.mjs';
import { openTranscriptFromSidebar } from './support/agent-rewind';
import { e2eEnv } from './support/env';
import { openVsCode, keepFailureArtifacts, type VsCode } from './support/vscode';

describe('shell debug', () => {
  let vs: VsCode | undefined;
  let s: BranchedSession;
  before(async () => {
    vs = await openVsCode({ name: 'dbg', prepare: ({ workspace, home }) => { s = createBranchedSession({ repo: e2eEnv().repo, home, workspace }); } });
  });
  after(async () => { await vs?.close(); });
  it('logs', async () => {
    const page = vs!.page;
    await openTranscriptFromSidebar(page, s.title, s.newHead);
    const settingsFile = join(vs!.server.userDataDir, 'User', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    writeFileSync(settingsFile, JSON.stringify({ ...settings, 'agentRewind.fileCheckpointing.enabled': false }, null, 2));
    await page.waitForTimeout(15000);
    console.log('dir', await keepFailureArtifacts(vs, 'dbg'));
  });
});
