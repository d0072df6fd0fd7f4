// Who compacts a store that a checkpointer which does not stay (a fresh CLI process) found due: the CLI starts a
// detached `agent-rewind gc` (as git starts `gc --auto`); nobody in the extension or the service, which compact
// themselves (store-compaction.ts, compactInBackground). This module imports nothing, so that the CLI fills the slot at
// start-up without loading the store's modules (test/unit/cli/lazy-commands.test.ts lists what start-up may load).
// The slot is process-wide, under a registered symbol: every copy of this module a bundle inlines shares it.
const SLOT = Symbol.for('agent-rewind.compactInBackground');
const slots = globalThis as Record<symbol, unknown>;

export type BackgroundCompactor = (workspaceRoot: string, storeDir: string) => void;

export function setBackgroundCompactor(fn: BackgroundCompactor | undefined): void {
  slots[SLOT] = fn;
}

export function backgroundCompactor(): BackgroundCompactor | undefined {
  const fn = slots[SLOT];
  return typeof fn === 'function' ? (fn as BackgroundCompactor) : undefined;
}
