// `agent-rewind state <session> [--at ID]`: session state (three scopes) and artifact versions as of an entry.
import type { Command } from '../command';
import { BlobStore } from '../../core/session/blob-store';
import { blobsDir } from '../../core/session/paths';
import { scopeOf } from '../../core/state/records';
import { SessionState } from '../../core/state/session-state';
import { warnOnStderr, withSessionArg } from '../session-arg';
// Other agents' sessions have no session state or artifacts of ours: openSessionArg refuses them with a clear error.
import { forTerminal } from '../terminal-text';

export const stateCommand: Command = {
  usage: 'state <session> [--at ENTRY_ID] [--json] [--home DIR]',
  options: { at: { type: 'string' } },
  positionals: ['<session>'],
  async run(ctx) {
    const at = typeof ctx.values.at === 'string' ? ctx.values.at : undefined;
    await withSessionArg(ctx, ctx.positionals[0], async (session) => {
      const state = new SessionState(session, { blobs: new BlobStore(blobsDir(ctx.home)), warn: warnOnStderr });
      const snap = await state.stateAt(at);
      const result = {
        entryId: snap.entryId,
        invocationId: snap.invocationId,
        state: snap.state,
        artifacts: snap.artifacts.map(({ name, version, mimeType, size, blob, restoredFrom }) => ({ name, version, mimeType, size, blob, ...(restoredFrom ? { restoredFrom } : {}) })),
      };
      ctx.out(result, () => {
        const lines = [`as of ${snap.entryId ?? '(empty session)'} (invocation ${snap.invocationId ?? 'none'})`];
        const keys = Object.keys(snap.state).sort();
        lines.push(keys.length ? 'state:' : 'state: (empty)');
        for (const key of keys) lines.push(`  [${scopeOf(key)}] ${key} = ${JSON.stringify(snap.state[key])}`);
        lines.push(snap.artifacts.length ? 'artifacts:' : 'artifacts: (none)');
        for (const a of snap.artifacts) lines.push(`  ${a.name} v${a.version} ${a.mimeType} ${a.size} B${a.restoredFrom ? ` (restored from v${a.restoredFrom})` : ''}`);
        return lines.map((line) => forTerminal(line, { oneLine: true })).join('\n');
      });
    });
  },
};
