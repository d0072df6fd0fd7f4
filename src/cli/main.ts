// `agent-rewind`: the command-line face of src/core. Every command takes --json and --home.
import { parseArgs } from 'node:util';
import { CliError, UsageError, type Command, type CommandContext } from './command';
import { commands } from './commands/index';
import { resolveHome } from '../core/home';
import { forPerson, forTerminal } from './terminal-text';
import { isatty } from 'node:tty';
import { writeStdout } from './stdout';
import { settingsSource } from '../core/settings/settings-source';
import { setBackgroundCompactor } from '../core/files/store/compaction-handoff';
import { setServiceStarter } from '../core/service/service-starter';
import { exitWhenDone } from './exit-when-done';

const sharedOptions = {
  json: { type: 'boolean' },
  home: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function helpText(): string {
  const width = Math.max(...commands.map((c) => c.name.length), 4);
  const home = resolveHome();
  const source = settingsSource(home);
  return [
    'usage: agent-rewind <command> [options]   (every command takes --json and --home DIR)',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'File-checkpoint settings (agentRewind.fileCheckpointing.*: size limit, excludes, store cap, store location) are',
    "the extension's: read from <home>/config.json, else from VS Code's user settings.json (~/.config/Code/User,",
    "~/.vscode-server/data/Machine, code-server's ~/.local/share/code-server/User), else the same defaults.",
    `Settings used now: ${source ? forTerminal(source, { oneLine: true }) : "none found: the extension's defaults"} (home ${forTerminal(home, { oneLine: true })})`,
  ].join('\n');
}

/** Indented JSON for a person: JSON.stringify leaves C1 and bidi controls raw, so they are escaped too (the text
 *  still parses to the same value). */
function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function usageError(name: string, command: Command, message: string): number {
  process.stderr.write(
    `agent-rewind ${name}: ${forTerminal(message)}\nusage: agent-rewind ${command.usage}\n(agent-rewind ${name} --help explains every option)\n`,
  );
  return 2;
}

/** node:util's parse error in our words, with the option meant when one was mistyped. */
async function optionProblem(command: Command, err: Error): Promise<string> {
  const unknown = /^Unknown option '(-{1,2})([^']+)'/.exec(err.message);
  if (!unknown) return err.message;
  const { closest } = await import('./command-help');
  const known = Object.keys({ ...sharedOptions, ...command.options });
  const meant = closest(unknown[2]!, known);
  return `unknown option ${unknown[1]}${unknown[2]}${meant ? ` (did you mean --${meant}?)` : ''}`;
}

const POSITIONAL_HINTS: Record<string, string> = { '<session>': ' (a session id or a path to a .jsonl file)' };

/** What is wrong with the positional arguments of a command that declares them, or undefined. */
function checkPositionals(command: Command, given: readonly string[]): string | undefined {
  const expected = command.positionals;
  if (!expected) return undefined;
  const missing = expected.findIndex((_, i) => given[i] === undefined || given[i] === '');
  if (missing >= 0) return `missing ${expected[missing]}${POSITIONAL_HINTS[expected[missing]!] ?? ''}`;
  if (given.length > expected.length) return `unexpected argument "${given[expected.length]}"`;
  return undefined;
}

export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name) {
    // a usage mistake like any other: the text goes to stderr so a script's stdout stays clean
    process.stderr.write(helpText() + '\n');
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    writeStdout(helpText() + '\n');
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    const meant = (await import('./command-help')).closest(
      name,
      commands.map((c) => c.name),
    );
    process.stderr.write(
      `agent-rewind: unknown command "${forTerminal(name, { oneLine: true })}"${meant ? ` (did you mean ${meant}?)` : ''}\n\n${helpText()}\n`,
    );
    return 2;
  }
  // extra agents (docs/ARCHITECTURE.md, "Adding an agent"): the modules $AGENT_REWIND_AGENT_MODULES names are loaded
  // before the command, so every command and `hook <id>` know them; without the variable nothing more is loaded
  if (process.env.AGENT_REWIND_AGENT_MODULES) {
    try {
      const registry = await import('../core/sources/registry');
      await registry.loadAgentModules(registry.agentModulesFromEnv());
    } catch (err) {
      process.stderr.write(`agent-rewind: ${forTerminal((err as Error).message)}\n`);
      return 1;
    }
  }
  const command = await entry.load();
  // a snapshot that found no checkpoint service serving its folder starts one in the background, hooks included
  // (start-service-later.ts)
  setServiceStarter((home, root) => void import('./start-service-later').then((m) => m.startServiceLater(home, root)));
  if (command.raw) return command.raw(rest);
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...sharedOptions, ...command.options }, allowPositionals: true, strict: true });
  } catch (err) {
    return usageError(name, command, await optionProblem(command, err as Error));
  }
  if (parsed.values.help) {
    const { commandHelpText } = await import('./command-help');
    writeStdout(commandHelpText(name, command.usage, Object.keys(command.options ?? {})) + '\n');
    return 0;
  }
  // `--home "$UNSET"` must not quietly mean ~/.agent-rewind
  if (parsed.values.home === '') return usageError(name, command, '--home needs a folder');
  const positionalProblem = checkPositionals(command, parsed.positionals);
  if (positionalProblem) return usageError(name, command, positionalProblem);
  const json = parsed.values.json === true;
  const ctx: CommandContext = {
    values: parsed.values as CommandContext['values'],
    positionals: parsed.positionals,
    json,
    home: resolveHome(typeof parsed.values.home === 'string' ? parsed.values.home : undefined),
    cwd: process.cwd(),
    out(result, human) {
      // a person's output is filtered as a whole, whatever each command already did (escape sequences from session
      // text or file names would retitle, clear or recolor the terminal)
      writeStdout((json ? JSON.stringify(result) : human ? forPerson(human(), { styles: isatty(1) }) : jsonForTerminal(result)) + '\n');
    },
  };
  // a snapshot that leaves the store due for compaction hands it to a detached gc (compact-later.ts)
  setBackgroundCompactor((workspaceRoot, storeDir) => void import('./compact-later').then((m) => m.compactLater(ctx.home, workspaceRoot, storeDir)));
  try {
    await command.run(ctx);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return usageError(name, command, err.message);
    const message = err instanceof CliError || err instanceof Error ? err.message : String(err);
    process.stderr.write(`agent-rewind ${name}: ${forTerminal(message)}\n`);
    if (process.env.AGENT_REWIND_DEBUG && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    return 1;
  }
}

if (require.main === module) {
  // once everything it started is done: without Node's teardown (exit-when-done.ts)
  exitWhenDone();
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
