// "Continue in <agent>": the command line a terminal runs to resume a fork in the agent's own CLI, with the program
// the user configured for that agent (its `resume.commandSetting` in the registry), and whether that
// program can be found before a terminal is opened on a "command not found". No `vscode` here, so it is unit tested.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { agents } from '../../core/sources';

/** The setting (under agentRewind.) holding each agent's command, by the program the engine's resume command names
 *  (as the registry's agents declare them). */
export const AGENT_COMMAND_SETTINGS: Readonly<Record<string, string>> = Object.fromEntries(
  agents().flatMap((a) => (a.resume ? [[a.resume.program, a.resume.commandSetting]] : [])),
);

export interface ResumeLine {
  /** What the terminal runs: the configured command as the user wrote it, then the resume arguments quoted. */
  line: string;
  /** The program to look for (the configured command's first word). */
  program: string;
  /** The setting that names it, when there is one. */
  setting?: string;
}

/** The resume command with the configured command in place of the agent's default program. */
export function resumeLine(resumeCommand: readonly string[], configured: (setting: string) => string | undefined): ResumeLine {
  const [defaultProgram = '', ...args] = resumeCommand;
  const setting = AGENT_COMMAND_SETTINGS[defaultProgram];
  const command = (setting ? configured(setting)?.trim() : undefined) || shellQuote(defaultProgram);
  return {
    line: [command, ...args.map(shellQuote)].join(' '),
    program: firstWord(command),
    ...(setting ? { setting: `agentRewind.${setting}` } : {}),
  };
}

/** Where `program` is (a path as given, else the first PATH folder holding it as an executable file), or undefined. */
export async function findProgram(program: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const executable = async (file: string) =>
    (await stat(file).then(
      (s) => s.isFile(),
      () => false,
    )) &&
    (await access(file, constants.X_OK).then(
      () => true,
      () => false,
    ));
  if (program.includes('/') || (process.platform === 'win32' && program.includes('\\'))) {
    return isAbsolute(program) && (await executable(program)) ? program : undefined;
  }
  const extensions = process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const ext of extensions) {
      const file = join(dir, program + ext);
      if (await executable(file)) return file;
    }
  }
  return undefined;
}

/** What the user is told when the program is not there, and what they can do about it. */
export function missingProgramMessage(agent: string, r: ResumeLine): string {
  const where = r.setting ? ` Set ${r.setting} to the command that starts ${agent} (a path, or e.g. "npx …"),` : '';
  return `${agent}'s command "${r.program}" was not found on this machine's PATH.${where} or run it in a terminal where it works: ${r.line}`;
}

/** One argument for a POSIX shell (ids and paths are passed as they are, never interpreted). */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function firstWord(command: string): string {
  const m = /^\s*(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(command);
  return m?.[1] ?? m?.[2] ?? m?.[3] ?? command;
}
