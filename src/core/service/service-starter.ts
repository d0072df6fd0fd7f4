// Who starts the checkpoint service when a snapshot found none serving its folder (issue 26): the CLI starts a
// detached `agent-rewind serve --auto` once its process has nothing left to do (start-service-later.ts), as git starts
// its fsmonitor daemon on first use; nobody in the extension (which hosts its own) or in the service itself. Like
// compaction-handoff.ts, this module imports nothing, so the CLI fills the slot at start-up at no cost, and the slot
// is process-wide under a registered symbol: every copy of this module a bundle inlines shares it.
const SLOT = Symbol.for('agent-rewind.startService');
const slots = globalThis as Record<symbol, unknown>;

/** Starts (or asks the running service to add) a service for `workspaceRoot`, without waiting for it. */
export type ServiceStarter = (home: string, workspaceRoot: string) => void;

export function setServiceStarter(fn: ServiceStarter | undefined): void {
  slots[SLOT] = fn;
}

export function serviceStarter(): ServiceStarter | undefined {
  const fn = slots[SLOT];
  return typeof fn === 'function' ? (fn as ServiceStarter) : undefined;
}
