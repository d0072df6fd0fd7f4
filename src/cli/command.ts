// The contract every CLI command implements. Commands are small modules listed in the table in commands/index.ts.
import { resolve } from 'node:path';
import type { ParseArgsConfig } from 'node:util';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  /** Parsed options (the shared --json/--home included) and positional arguments. */
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  json: boolean;
  /** The agent-rewind home: --home, else $AGENT_REWIND_HOME, else ~/.agent-rewind. */
  home: string;
  cwd: string;
  /** Writes the machine-readable result (with --json) or human text (without). */
  out(result: unknown, human?: () => string): void;
}

/** How a command reads its arguments and what it does. Its module is loaded only when the command runs (CommandEntry). */
export interface Command {
  usage: string;
  options?: OptionSpec;
  /** The positional arguments it takes, in order (e.g. ['<session>', '<messageId>']), all required: main checks
   *  that each is there and that nothing follows. Leave out to check them in run() instead. */
  positionals?: readonly string[];
  run(ctx: CommandContext): Promise<void>;
  /** Takes the raw arguments after the command name instead: no option parsing, no usage errors, and the exit code
   *  it returns (for `hook`, which Claude Code runs and which must never fail nor print). */
  raw?(argv: string[]): Promise<number>;
}

/** One line of the command table (commands/index.ts): what --help lists, and where the command's code is. */
export interface CommandEntry {
  name: string;
  summary: string;
  /** Evaluates the command's module on first use: most commands pull in parts of core and their libraries (zod,
   *  sql.js, the file checkpointer…), which --help and the other commands should not pay for in a fresh process. */
  load(): Promise<Command>;
}

/** A usage mistake: exit code 2. */
export class UsageError extends Error {}
/** A failure the user should see verbatim: exit code 1. */
export class CliError extends Error {}

/** The folder --cwd names (relative to where the CLI runs), else where the CLI runs. */
export function cwdOption(ctx: CommandContext): string {
  return typeof ctx.values.cwd === 'string' ? resolve(ctx.cwd, ctx.values.cwd) : ctx.cwd;
}
