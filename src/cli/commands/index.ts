// The command table: what `agent-rewind --help` lists and how a name finds its command. Only this table is evaluated
// at start-up; a command's module, and the parts of core it uses, load when that command runs (a dynamic import(),
// which esbuild bundles as a wrapper evaluated on first use). Never import a command module statically here: that would
// bring back its start-up cost for every command (test/unit/cli/lazy-commands.test.ts checks this).
import type { CommandEntry } from '../command';

// Keep the list alphabetical.
export const commands: CommandEntry[] = [
  { name: 'append', summary: 'append a user or assistant message to a session', load: async () => (await import('./append')).appendCommand },
  {
    name: 'blame',
    summary: 'per line of a file, the prompt (any agent) that last changed it, or you; from the snapshots, not git',
    load: async () => (await import('./file-history')).blameCommand,
  },
  {
    name: 'branches',
    summary: 'list the conversation branches of a session (the active one marked *)',
    load: async () => (await import('./branches')).branchesCommand,
  },
  {
    name: 'checkpoint',
    summary: "name the active branch's head message as a checkpoint to restore later",
    load: async () => (await import('./checkpoint')).checkpointCommand,
  },
  {
    name: 'compare',
    summary: 'compare two branches of a session: where they part, the messages of each, the files that differ (+/−)',
    load: async () => (await import('./compare')).compareCommand,
  },
  {
    name: 'context',
    summary: "print a session's model context (messages, thinking level, models, mode)",
    load: async () => (await import('./context')).contextCommand,
  },
  { name: 'gc', summary: 'remove file-checkpoint data no snapshot reaches', load: async () => (await import('./gc')).gcCommand },
  {
    name: 'history',
    summary: 'the prompts (any agent) that changed a file, newest first, each with its diff; from the snapshots, not git',
    load: async () => (await import('./file-history')).historyCommand,
  },
  {
    name: 'hook',
    summary: "what an agent's hooks run: snapshot the workspace for a prompt or a turn end (stdin JSON, silent)",
    load: async () => (await import('./hook')).hookCommand,
  },
  {
    name: 'hooks',
    summary: 'install or uninstall the hooks that snapshot the workspace on every prompt, for an agent that has them',
    load: async () => (await import('./hooks')).hooksCommand,
  },
  { name: 'new', summary: 'create a new session', load: async () => (await import('./new')).newCommand },
  {
    name: 'redo-rewind',
    summary: 'apply the last undone rewind again (its branch and its files)',
    load: async () => (await import('./redo-rewind')).redoRewindCommand,
  },
  {
    name: 'restore',
    summary: 'rewind to a named checkpoint (a new active branch whose head is its message)',
    load: async () => (await import('./restore')).restoreCommand,
  },
  {
    name: 'rewind',
    summary: "rewind the conversation to a message: a new branch <current>-vN (another agent's session: a fork it can resume); --files also the files",
    load: async () => (await import('./rewind')).rewindCommand,
  },
  {
    name: 'rewind-files',
    summary: 'preview (--dry-run) or rewind the workspace files to a user message',
    load: async () => (await import('./rewind-files')).rewindFilesCommand,
  },
  {
    name: 'search',
    summary: "full-text search over the messages of a folder's sessions (through the catalog)",
    load: async () => (await import('./search')).searchCommand,
  },
  {
    name: 'serve',
    summary: "run the checkpoint service: keeps folders' trees and watchers warm so hooks and the CLI snapshot in milliseconds",
    load: async () => (await import('./serve')).serveCommand,
  },
  {
    name: 'sessions',
    summary: "list the sessions of a folder, every agent's",
    load: async () => (await import('./sessions')).sessionsCommand,
  },
  { name: 'snapshot', summary: 'snapshot the workspace files, anchored at a user message', load: async () => (await import('./snapshot')).snapshotCommand },
  {
    name: 'state',
    summary: 'show session state and artifact versions as of an entry (default: the active branch)',
    load: async () => (await import('./state')).stateCommand,
  },
  { name: 'switch', summary: 'make another branch of a session active', load: async () => (await import('./switch')).switchCommand },
  { name: 'tree', summary: "print a session's entry tree and its leaf", load: async () => (await import('./tree')).treeCommand },
  {
    name: 'undo-rewind',
    summary: 'undo the last rewind: the files (those changed by hand since are kept) and the branch it left',
    load: async () => (await import('./undo-rewind')).undoRewindCommand,
  },
];
