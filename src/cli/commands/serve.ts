// `agent-rewind serve [--workspace DIR]... [--idle-minutes N]`: the checkpoint service for terminals without VS Code.
// It keeps each folder's tree and watcher warm so that `hook claude|codex`, `snapshot`, `append`, `rewind-files` and
// `undo-rewind` (which ask it first) take a snapshot in milliseconds instead of re-checking the whole tree. One per
// home: a second start says where the running one is. Stops after an idle time (default 30 min) and on SIGTERM/SIGINT.
import { resolve } from 'node:path';
import { CliError, UsageError, type Command } from '../command';
import { CheckpointService, ServiceRunningError } from '../../core/service';
import { cliCheckpointerOptions } from '../cli-settings';

export const DEFAULT_IDLE_MINUTES = 30;

export const serveCommand: Command = {
  usage: 'serve [--workspace DIR]... [--idle-minutes N] [--verbose] [--home DIR]   (default: the current folder; 0 minutes: never idle out)',
  options: { workspace: { type: 'string', multiple: true }, 'idle-minutes': { type: 'string' }, verbose: { type: 'boolean' } },
  positionals: [],
  async run(ctx) {
    const given = ctx.values.workspace;
    const folders = (Array.isArray(given) && given.length ? (given as string[]) : [ctx.cwd]).map((w) => resolve(ctx.cwd, w));
    const idleText = ctx.values['idle-minutes'];
    const idleMinutes = typeof idleText === 'string' ? Number(idleText) : DEFAULT_IDLE_MINUTES;
    if (!Number.isFinite(idleMinutes) || idleMinutes < 0) throw new UsageError(`--idle-minutes must be a number of minutes ≥ 0, not "${String(idleText)}"`);
    const service = new CheckpointService({
      home: ctx.home,
      workspaces: folders,
      idleMs: idleMinutes * 60_000,
      // what the CLI and the hooks would use for these folders (the settings file), so that they are answered
      checkpointer: (root) => cliCheckpointerOptions(ctx.home, root, (m) => process.stderr.write(`agent-rewind serve: ${m}\n`)),
      log: (m) => process.stderr.write(`agent-rewind serve: ${m}\n`),
      trace: ctx.values.verbose === true,
    });
    try {
      await service.start();
    } catch (err) {
      if (err instanceof ServiceRunningError) throw new CliError(err.message);
      throw new CliError(`cannot start the checkpoint service: ${(err as Error).message}`);
    }
    const stop = (signal: string) => {
      process.stderr.write(`agent-rewind serve: ${signal}: stopping\n`);
      void service.stop();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    const info = { pid: process.pid, socket: service.socket, workspaces: service.workspaces, idleMinutes };
    ctx.out(
      info,
      () =>
        `checkpoint service (pid ${process.pid}) serving ${service.workspaces.join(', ')}\nsocket: ${service.socket}${idleMinutes ? `\nstops after ${idleMinutes} min without a request` : ''}`,
    );
    await service.stopped;
  },
};
