// `agent-rewind gc [--workspace DIR]`: remove checkpoint objects no snapshot reaches (every workspace store under
// the home, or one workspace's), enforce the size cap, and compact what is left (store-compaction.ts).
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CliError, type Command } from '../command';
import { FileCheckpointer } from '../../core/files';
import { cliCheckpointerOptions } from '../cli-settings';
import { warnOnStderr } from '../session-arg';

async function workspaceOfStore(storeDir: string): Promise<string | undefined> {
  try {
    const json = JSON.parse(await readFile(join(storeDir, 'workspace.json'), 'utf8')) as { workspaceRoot?: unknown };
    return typeof json.workspaceRoot === 'string' ? json.workspaceRoot : undefined;
  } catch {
    return undefined;
  }
}

export const gcCommand: Command = {
  usage: 'gc [--workspace DIR]',
  options: { workspace: { type: 'string' } },
  positionals: [],
  async run(ctx) {
    const targets: { workspace: string; storeDir?: string }[] = [];
    if (typeof ctx.values.workspace === 'string') targets.push({ workspace: resolve(ctx.cwd, ctx.values.workspace) });
    else {
      const base = join(ctx.home, 'checkpoints');
      for (const name of existsSync(base) ? await readdir(base) : []) {
        const ws = await workspaceOfStore(join(base, name));
        if (ws && existsSync(ws)) targets.push({ workspace: ws, storeDir: join(base, name) });
      }
    }
    const results = [];
    for (const t of targets) {
      const opts = cliCheckpointerOptions(ctx.home, t.workspace, warnOnStderr);
      const fc = new FileCheckpointer({ ...opts, ...(t.storeDir ? { storeDir: t.storeDir } : {}) });
      try {
        results.push({ workspace: t.workspace, ...(await fc.gc()) });
      } catch (err) {
        throw new CliError(`gc of ${t.workspace} failed: ${(err as Error).message}`);
      } finally {
        await fc.dispose();
      }
    }
    const total = {
      removedObjects: results.reduce((a, r) => a + r.removedObjects, 0),
      freedBytes: results.reduce((a, r) => a + r.freedBytes, 0),
      stores: results,
    };
    const compacted = results.flatMap((r) => (r.compacted ? [r.compacted] : []));
    const before = compacted.reduce((a, c) => a + c.bytesBefore, 0);
    const after = compacted.reduce((a, c) => a + c.bytesAfter, 0);
    ctx.out(
      total,
      () =>
        `removed ${total.removedObjects} objects, freed ${total.freedBytes} bytes in ${results.length} checkpoint stores` +
        (compacted.length ? `; compacted ${before} bytes of packs into ${after}` : ''),
    );
  },
};
