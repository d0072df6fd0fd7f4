// What `agent-rewind <command> --help` explains beyond the usage line: what the command does, each of its options, and
// an example. Loaded only for --help and for usage errors (a mistyped option), never on a command's normal path.
// test/unit/cli/command-help.test.ts holds every command and every option it declares to an entry here.

export interface CommandHelp {
  /** What the command does, in a sentence or two. */
  description: string;
  /** Each option the command declares (without the leading --), explained. */
  options?: Record<string, string>;
  examples: string[];
}

const WORKSPACE = "the folder whose files are snapshotted or restored (default: the session's own folder)";

export const SHARED_OPTIONS: Record<string, string> = {
  json: 'machine-readable output on stdout (errors still go to stderr, with exit code 1)',
  home: 'the agent-rewind home (default: $AGENT_REWIND_HOME, else ~/.agent-rewind)',
  help: 'this help',
};

export const commandHelp: Record<string, CommandHelp> = {
  append: {
    description:
      'Appends a message to a session. A user message also snapshots the workspace files (what rewind-files goes back to); an assistant message ends the turn with a second snapshot, so later hand edits are told apart.',
    options: {
      role: 'user or assistant',
      text: 'the message text',
      'text-file': 'read the message text from FILE, or from standard input with -',
      id: 'the id to give the entry (default: a new one)',
      'no-snapshot': 'do not snapshot the files for this message',
      workspace: WORKSPACE,
    },
    examples: ['agent-rewind append <session> --role user --text "Split main.ts"', 'git diff | agent-rewind append <session> --role user --text-file -'],
  },
  branches: { description: 'Lists the conversation branches of a session; * marks the active one.', examples: ['agent-rewind branches <session>'] },
  checkpoint: {
    description: "Names the active branch's last message as a checkpoint that `restore` goes back to (reusing a name moves it).",
    examples: ['agent-rewind checkpoint <session> before-refactor'],
  },
  compare: {
    description:
      'Compares two branches: the last message they share, the messages of each after it, and the files that differ (+/− lines). Both of one session, or B of another session of the folder (--with: a fork, its origin, any other).',
    options: { with: 'B is a branch of this session (a fork of <session>, its origin, any session of the folder)', workspace: WORKSPACE },
    examples: ['agent-rewind compare <session> main main-v2', 'agent-rewind compare <claude-session> main main --with <its-fork>'],
  },
  context: {
    description: 'Prints what the model sees from a message: the messages of its branch, root first.',
    options: { leaf: 'the entry to build the context from (default: the active branch’s last entry)' },
    examples: ['agent-rewind context <session>', 'agent-rewind context <session> --leaf <entryId> --json'],
  },
  blame: {
    description:
      "Prints each line of a file with the prompt that last changed it (its agent, session and user message id) or \"you\" (changed outside every agent's turn), from the folder's file snapshots, not git. With --json each line's owner is { by: 'turn', sessionId, prompt, messageId }, { by: 'several', sessions } or { by: 'user' }.",
    options: { workspace: 'the folder whose snapshots to read (default: the nearest folder above the file that has some)' },
    examples: ['agent-rewind blame src/app.ts', 'agent-rewind blame src/app.ts --json'],
  },
  gc: {
    description: 'Removes file-checkpoint data that no snapshot reaches any more, and compacts the store.',
    options: { workspace: 'the folder whose checkpoint store to clean (default: the current folder)' },
    examples: ['agent-rewind gc'],
  },
  history: {
    description:
      "Lists the changes to a file, newest first: which prompt (any agent, named by its session and user message id) or you made each, with its diff; a file renamed by mv is followed to its old name. From the folder's file snapshots, not git.",
    options: { workspace: 'the folder whose snapshots to read (default: the nearest folder above the file that has some)' },
    examples: ['agent-rewind history src/app.ts', 'agent-rewind history src/app.ts --json'],
  },
  hook: {
    description:
      "What an agent's hooks run: reads the hook's JSON on standard input and snapshots the workspace for a prompt or a turn end. Prints nothing and always exits 0, so a hook never stops the agent.",
    examples: ['agent-rewind hooks install <agent>   (writes the hooks that run this)'],
  },
  hooks: {
    description:
      "Installs or uninstalls the hooks that make an agent snapshot the workspace at every prompt (shell changes included). Only agent-rewind's own entries are added or removed; everything else in the settings file stays as it was.",
    options: {
      user: "the user's settings instead of the project's",
      cwd: 'the project folder (default: the current folder)',
      'no-baseline': 'do not take a first snapshot of the workspace now',
      command: 'the executable the hooks run (default: this node and script)',
    },
    examples: ['agent-rewind hooks install <agent>', 'agent-rewind hooks uninstall <agent> --user'],
  },
  new: {
    description: 'Creates a new session and prints its id and file.',
    options: { cwd: 'the folder the session works in (default: the current folder)', title: 'a title for the session' },
    examples: ['agent-rewind new --cwd . --title "Refactor"'],
  },
  'redo-rewind': {
    description: 'Applies the last undone rewind of the workspace folder again: its branch and its files.',
    options: { workspace: WORKSPACE },
    examples: ['agent-rewind redo-rewind <session>'],
  },
  restore: {
    description: "Rewinds the conversation to a named checkpoint: a new active branch whose last message is the checkpoint's.",
    examples: ['agent-rewind restore <session> before-refactor'],
  },
  rewind: {
    description:
      "Rewinds the conversation to a message: a new branch <current>-vN whose last message is that one (the old branch stays). Another agent's session is never changed: a new session of that agent holds the conversation up to the message, and the command to continue it is printed. The files stay as they are unless --files is given.",
    options: {
      files: 'also put the workspace files back as they were when the message was sent (undo-rewind undoes both)',
      'overwrite-user-modified': 'with --files: also rewind files you changed by hand since the message',
      'include-other-sessions': "with --files: also rewind files another session's turns changed since the message",
      workspace: WORKSPACE,
    },
    examples: ['agent-rewind rewind <session> <messageId>', 'agent-rewind rewind <session> <messageId> --files'],
  },
  'rewind-files': {
    description:
      "Puts back the files this session's turns changed since a user message was sent, as they were then, or with --dry-run says what that would do (with --json, each file's changedBy: this-session, other-session with otherSession and otherPrompt, several, or user). Files you or another session changed since are left alone unless you say so; undo-rewind puts everything back.",
    options: {
      'dry-run': 'change nothing: list what the rewind would delete, re-create and restore',
      workspace: WORKSPACE,
      'overwrite-user-modified': 'also rewind files you changed by hand since the message (outside any agent turn)',
      'include-other-sessions': "also rewind files another session's turns changed since the message",
      only: 'bring back exactly this file (or everything below this folder), whoever changed it, and nothing else; repeat it for more (undo-rewind puts them back)',
      hunks:
        "PATH:N[,N...][@HASH]: take back only these hunks of a text file (numbered from 1 as --dry-run lists them; --dry-run --json gives each file's hunks and hunksHash), the rest of it stays as it is now; with @HASH the rewind refuses if the file changed since. Like --only, nothing else comes back; repeat it for more files",
    },
    examples: [
      'agent-rewind rewind-files <session> <userMessageId> --dry-run',
      'agent-rewind rewind-files <session> <userMessageId>',
      'agent-rewind rewind-files <session> <userMessageId> --only src/app.ts --only README.md',
      'agent-rewind rewind-files <session> <userMessageId> --dry-run --json',
      'agent-rewind rewind-files <session> <userMessageId> --hunks src/app.ts:1,3',
    ],
  },
  search: {
    description:
      'Searches the messages of the sessions of a folder (or of every folder). Words match whole (the last one also as a prefix); "quoted words" match as a phrase.',
    options: {
      cwd: 'the folder whose sessions to search (default: the current folder)',
      all: 'search the sessions of every folder',
      limit: 'at most N hits in all',
      'per-session': 'at most N hits per session',
    },
    examples: ['agent-rewind search "date parser"', 'agent-rewind search timezone --all --json'],
  },
  serve: {
    description:
      'Runs the checkpoint service for one or more folders, so that hooks and commands snapshot in milliseconds. Stops by itself when idle. You need not run it: a hook or command that snapshots a folder no service serves starts one in the background (agentRewind.checkpointService.autoStart, AGENT_REWIND_SERVICE_AUTOSTART=off).',
    options: {
      workspace: 'a folder to serve (repeatable; default: the current folder)',
      'idle-minutes': 'stop after N minutes without a request (0: never; default: agentRewind.checkpointService.idleMinutes, 30)',
      verbose: 'log each request on stderr',
      status: 'show the running service: its process, folders, memory, requests answered and idle timer (and whether auto-start is on)',
      stop: 'stop the running service (it finishes the requests in flight first)',
      auto: 'what a hook starts in the background: log to <home>/logs/service.log; when a service runs already, ask it to serve these folders too',
    },
    examples: ['agent-rewind serve --status', 'agent-rewind serve --stop', 'agent-rewind serve --workspace ~/a --workspace ~/b --idle-minutes 0'],
  },
  sessions: {
    description:
      'Lists the sessions of a folder from every agent agent-rewind reads, newest first: when each started, its agent, its number of entries (where known without reading it whole), its id and title, and its file.',
    options: { cwd: 'the folder whose sessions to list (default: the current folder)', all: 'the sessions of every folder' },
    examples: ['agent-rewind sessions', 'agent-rewind sessions --all --json'],
  },
  snapshot: {
    description: 'Snapshots the workspace files now, anchored at a user message that has none (append usually does this for you).',
    options: { anchor: 'the user message the snapshot belongs to', workspace: WORKSPACE },
    examples: ['agent-rewind snapshot <session> --anchor <userMessageId>'],
  },
  state: {
    description: "Prints a session's state and artifacts, now or as they were at an entry.",
    options: { at: 'the entry to show the state at (default: the active branch’s last entry)' },
    examples: ['agent-rewind state <session>', 'agent-rewind state <session> --at <entryId> --json'],
  },
  switch: { description: 'Makes another branch of a session active. The files stay as they are.', examples: ['agent-rewind switch <session> main'] },
  tree: { description: "Prints every entry of a session as a tree; * marks the active branch's last entry.", examples: ['agent-rewind tree <session>'] },
  'undo-rewind': {
    description:
      'Undoes the last rewind of the workspace folder, whichever session it was made in: the files go back as they were before it (files changed by hand since are kept) and the session returns to the branch it was on. redo-rewind applies it again.',
    options: { workspace: WORKSPACE },
    examples: ['agent-rewind undo-rewind <session>'],
  },
};

/** The closest of `candidates` to `given` (a typo of it), if one is close enough to suggest. */
export function closest(given: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(given, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(given.length / 3)) ? best : undefined;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  return rows[a.length]![b.length]!;
}

/** The whole help of a command: usage, what it does, its options, examples. */
export function commandHelpText(name: string, usage: string, declared: readonly string[]): string {
  const help = commandHelp[name];
  const lines = [`usage: agent-rewind ${usage}`];
  if (!help) return lines.join('\n');
  lines.push('', help.description);
  const options = [...declared.filter((o) => !(o in SHARED_OPTIONS)).map((o) => [o, help.options?.[o] ?? ''] as const), ...Object.entries(SHARED_OPTIONS)];
  const width = Math.max(...options.map(([o]) => o.length)) + 2;
  lines.push('', 'options:', ...options.map(([o, text]) => `  --${o.padEnd(width)}${text}`));
  lines.push('', help.examples.length > 1 ? 'examples:' : 'example:', ...help.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}
