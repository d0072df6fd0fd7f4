// `agent-rewind serve [--workspace DIR]... [--idle-minutes N]`: the checkpoint service for terminals without VS Code.
// It keeps each folder's tree and watcher warm so that `hook claude|codex`, `snapshot`, `append`, `rewind-files` and
// `undo-rewind` (which ask it first) take a snapshot in milliseconds instead of re-checking the whole tree. One per
// home: a second start says where the running one is. Stops after an idle time (default 30 min) and on SIGTERM/SIGINT.
// Nobody needs to run it by hand: a hook or command whose snapshot found no service serving its folder starts
// `serve --auto` in the background (start-service-later.ts). `--status` and `--stop` show and stop the running one.
import { resolve } from 'node:path';
import { CliError, UsageError, type Command, type CommandContext } from '../command';
import { CheckpointService, ServiceRunningError } from '../../core/service';
import { cliCheckpointerOptions, loadCliSettings } from '../cli-settings';
import { appendHookLog } from '../../core/sources/hook-log';
import { askToServe, serviceStatus, stopService, type ServiceStatus } from '../service-control';

/** Where a service started in the background (`--auto`, no terminal) says what it does. */
export const AUTO_LOG = 'service.log';

export const serveCommand: Command = {
  usage:
    'serve [--workspace DIR]... [--idle-minutes N] [--verbose] [--home DIR]   (default: the current folder; 0 minutes: never idle out)\n' +
    '       serve --status | --stop   (show or stop the running service)',
  options: {
    workspace: { type: 'string', multiple: true },
    'idle-minutes': { type: 'string' },
    verbose: { type: 'boolean' },
    status: { type: 'boolean' },
    stop: { type: 'boolean' },
    auto: { type: 'boolean' },
  },
  positionals: [],
  async run(ctx) {
    if (ctx.values.status === true && ctx.values.stop === true) throw new UsageError('--status and --stop go alone');
    if (ctx.values.status === true) return showStatus(ctx);
    if (ctx.values.stop === true) return stop(ctx);
    const auto = ctx.values.auto === true;
    const given = ctx.values.workspace;
    const folders = (Array.isArray(given) && given.length ? (given as string[]) : [ctx.cwd]).map((w) => resolve(ctx.cwd, w));
    const idleText = ctx.values['idle-minutes'];
    // the setting's (agentRewind.checkpointService.idleMinutes, default 30) unless given
    const idleMinutes = typeof idleText === 'string' ? Number(idleText) : loadCliSettings(ctx.home).settings.checkpointService.idleMinutes;
    if (!Number.isFinite(idleMinutes) || idleMinutes < 0) throw new UsageError(`--idle-minutes must be a number of minutes ≥ 0, not "${String(idleText)}"`);
    // started in the background by a hook or a command: nobody reads its stderr, so it logs to <home>/logs
    const say = auto
      ? (m: string) => appendHookLog(ctx.home, AUTO_LOG, `[${process.pid}] ${m}`)
      : (m: string) => process.stderr.write(`agent-rewind serve: ${m}\n`);
    const service = new CheckpointService({
      home: ctx.home,
      workspaces: folders,
      idleMs: idleMinutes * 60_000,
      // what the CLI and the hooks would use for these folders (the settings file), so that they are answered
      checkpointer: (root) => cliCheckpointerOptions(ctx.home, root, say),
      log: say,
      trace: ctx.values.verbose === true,
      origin: auto ? 'auto' : 'serve',
    });
    try {
      await service.start();
    } catch (err) {
      if (err instanceof ServiceRunningError && auto) {
        // one per home: the one running (perhaps starting this very moment, from another hook) serves these too
        for (const folder of folders) {
          const outcome = await askToServe(ctx.home, folder, say).catch((e: Error) => `not asked: ${e.message}`);
          say(`${folder}: ${outcome}`);
        }
        return;
      }
      if (auto) say(`cannot start: ${(err as Error).message}`);
      if (err instanceof ServiceRunningError) throw new CliError(err.message);
      throw new CliError(`cannot start the checkpoint service: ${(err as Error).message}`);
    }
    const stopOn = (signal: string) => {
      say(`${signal}: stopping`);
      void service.stop();
    };
    process.once('SIGTERM', () => stopOn('SIGTERM'));
    process.once('SIGINT', () => stopOn('SIGINT'));
    if (auto) say(`started for ${service.workspaces.join(', ')}${idleMinutes ? `; stops after ${idleMinutes} min without a request` : ''}`);
    const info = { pid: process.pid, socket: service.socket, workspaces: service.workspaces, idleMinutes };
    ctx.out(
      info,
      () =>
        `checkpoint service (pid ${process.pid}) serving ${service.workspaces.join(', ')}\nsocket: ${service.socket}${idleMinutes ? `\nstops after ${idleMinutes} min without a request` : ''}`,
    );
    await service.stopped;
    if (auto) say('stopped');
  },
};

async function showStatus(ctx: CommandContext): Promise<void> {
  const status = await serviceStatus(ctx.home);
  const autoStart = loadCliSettings(ctx.home).settings.checkpointService;
  ctx.out({ ...status, autoStart: autoStart.autoStart, autoStartIdleMinutes: autoStart.idleMinutes }, () =>
    [
      describeStatus(status),
      autoStart.autoStart
        ? `auto-start: on (a hook or command that snapshots a folder no service serves starts one; it stops after ${autoStart.idleMinutes} idle min)`
        : 'auto-start: off (agentRewind.checkpointService.autoStart, AGENT_REWIND_SERVICE_AUTOSTART or AGENT_REWIND_SERVICE)',
    ].join('\n'),
  );
}

function describeStatus(s: ServiceStatus): string {
  if (!s.running) return `no checkpoint service runs for this home${s.note ? ` (${s.note})` : ''}`;
  const by = { serve: 'agent-rewind serve', auto: 'a hook or command (serve --auto)', extension: 'VS Code (the extension host)' }[s.origin ?? 'serve'];
  const lines = [
    `checkpoint service: pid ${s.pid}, started ${s.startedAt} by ${by}`,
    `serving: ${s.workspaces.length ? s.workspaces.join(', ') : 'no folder'}`,
  ];
  if (s.requests !== undefined) lines.push(`requests answered: ${s.requests} (hooks, snapshots, rewinds, lists)`);
  if (s.rssBytes !== undefined)
    lines.push(`memory: ${(s.rssBytes / 1024 / 1024).toFixed(1)} MB resident${s.origin === 'extension' ? ' (the whole extension host)' : ''}`);
  if (s.idleMs !== undefined)
    lines.push(
      s.idleMs === 0 ? 'idle: never stops by itself' : `idle: stops after ${minutes(s.idleMs)} without a request (${minutes(s.idleLeftMs ?? s.idleMs)} left)`,
    );
  for (const w of s.watchLimit ?? []) lines.push(`not watched in ${w.workspace}: ${w.folders} folder(s), checked at every request instead. ${w.message}`);
  lines.push(`socket: ${s.socket}`);
  return lines.join('\n');
}

function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

async function stop(ctx: CommandContext): Promise<void> {
  const outcome = await stopService(ctx.home);
  ctx.out(outcome, () =>
    outcome.stopped
      ? `stopped the checkpoint service (pid ${outcome.pid})`
      : outcome.pid !== undefined
        ? `asked the checkpoint service (pid ${outcome.pid}) to stop; it has not stopped yet`
        : 'no checkpoint service runs for this home',
  );
  if (outcome.pid !== undefined && !outcome.stopped)
    throw new CliError(`the checkpoint service (pid ${outcome.pid}) did not stop within ${outcome.waitedMs} ms`);
}
