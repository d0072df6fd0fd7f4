// The contract every CLI command implements. Commands are small modules registered in commands/index.ts.
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

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options?: OptionSpec;
  run(ctx: CommandContext): Promise<void>;
}

/** A usage mistake: exit code 2. */
export class UsageError extends Error {}
/** A failure the user should see verbatim: exit code 1. */
export class CliError extends Error {}
