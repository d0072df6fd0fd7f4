// agent-rewind's OpenCode plugin: one file of ours, `agent-rewind.js`, in the project's `.opencode/plugins/` or the
// user's `$XDG_CONFIG_HOME/opencode/plugins/` (else ~/.config/opencode/plugins/), which OpenCode loads at start
// (an ES module exporting a plugin function; seen loading offline in 1.18.33 with nothing installed beside it).
//
// The plugin runs the launcher `hooks install` gives (`<launcher> hook opencode`) with one JSON line on its stdin:
//   - at `chat.message` (once per prompt; `output.message.id` is the user message's id, before OpenCode stores it and
//     before the model acts), and OpenCode waits for it (the hook is awaited, bounded by the plugin's own timeout);
//   - at the `session.idle` event (the turn's end), with the id of the last prompt it saw; OpenCode does not wait for
//     event hooks (`opencode run` exits right after it), so that one runs detached and is not waited for.
// Its stdout and stderr are dropped (OpenCode's terminal is not ours), and a launcher that cannot start is ignored.
//
// Installing writes the file when it is missing or differs (so installing twice changes nothing); uninstalling
// removes it only when it carries our mark. Another file of that name is refused and left as it is. The file is
// written through settings-file.ts (regular files only, no symlink in a project, owner and mode kept, a concurrent
// change noticed); a symlinked `.opencode` or `plugins` folder in a project is refused.
import { mkdirSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { editSettingsFiles, readSettingsFile, refuseLinkedFolder, type SettingsFileRef } from '../settings-file';

export const PLUGIN_FILE_NAME = 'agent-rewind.js';
export const PLUGIN_MARK = '@agent-rewind-opencode-plugin';
export const OPENCODE_HOOK_ARGS = ['hook', 'opencode'] as const;
/** How long the plugin waits for a prompt's snapshot (below OpenCode's own limits; the CLI's hook gives up at 28 s). */
const WAIT_MS = 30_000;

export class OpenCodePluginError extends Error {}
const fail = (message: string) => new OpenCodePluginError(message);

export type OpenCodePluginLocation = { scope: 'project'; projectDir: string } | { scope: 'user'; configDir?: string };

/** `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
export function openCodeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  return join(xdg ? xdg : join(homedir(), '.config'), 'opencode');
}

export function pluginFileOf(loc: OpenCodePluginLocation): string {
  const base = loc.scope === 'project' ? join(resolve(loc.projectDir), '.opencode') : resolve(loc.configDir ?? openCodeConfigDir());
  return join(base, 'plugins', PLUGIN_FILE_NAME);
}

/** The plugin's source for a launcher (absolute command and arguments). */
export function pluginSource(launcher: readonly string[]): string {
  const argv = [...launcher, ...OPENCODE_HOOK_ARGS];
  return `// ${PLUGIN_MARK} v1: written by \`agent-rewind hooks install opencode\`, removed by \`agent-rewind hooks uninstall opencode\`.
// At each prompt (chat.message) it runs agent-rewind's hook, which snapshots the workspace under the prompt's message
// id before the model acts, and again when the turn ends (session.idle). Edits here are replaced by the next install.
import { spawn } from 'node:child_process';

const ARGV = ${JSON.stringify(argv)};
const WAIT_MS = ${WAIT_MS};

// wait: OpenCode awaits chat.message before the model acts, so the snapshot is taken first. Not waiting: OpenCode does
// not await its event hooks and \`opencode run\` exits right after session.idle, so the turn-end hook runs detached
// (its own process group, not waited for) and finishes after OpenCode is gone.
function runHook(input, wait) {
  return new Promise((done) => {
    let child;
    try {
      child = spawn(ARGV[0], ARGV.slice(1), { stdio: ['pipe', 'ignore', 'ignore'], detached: !wait });
    } catch {
      done();
      return;
    }
    const timer = wait ? setTimeout(done, WAIT_MS) : undefined;
    const finish = () => {
      clearTimeout(timer);
      done();
    };
    child.on('error', finish);
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(input) + '\\n');
    if (wait) child.on('close', finish);
    else {
      child.unref();
      done();
    }
  });
}

export const AgentRewind = async ({ directory }) => {
  const lastPrompt = new Map();
  return {
    'chat.message': async (input, output) => {
      const messageId = output?.message?.id;
      const sessionId = input?.sessionID ?? output?.message?.sessionID;
      if (typeof messageId !== 'string' || typeof sessionId !== 'string') return;
      lastPrompt.set(sessionId, messageId);
      await runHook({ hook_event_name: 'chat.message', session_id: sessionId, message_id: messageId, cwd: directory }, true);
    },
    event: async ({ event }) => {
      if (event?.type !== 'session.idle') return;
      const sessionId = event.properties?.sessionID;
      const messageId = lastPrompt.get(sessionId);
      if (typeof sessionId !== 'string' || typeof messageId !== 'string') return;
      await runHook({ hook_event_name: 'session.idle', session_id: sessionId, message_id: messageId, cwd: directory }, false);
    },
  };
};
`;
}

const isOurs = (text: string): boolean => text.split('\n', 1)[0]!.includes(PLUGIN_MARK);

function refOf(loc: OpenCodePluginLocation): SettingsFileRef {
  const file = pluginFileOf(loc);
  if (loc.scope === 'project') {
    const project = resolve(loc.projectDir);
    refuseLinkedFolder(join(project, '.opencode'), fail);
    refuseLinkedFolder(dirname(file), fail);
  }
  return { file, followLink: loc.scope === 'user' };
}

export interface OpenCodePluginChange {
  pluginFile: string;
  action: 'added' | 'updated' | 'unchanged' | 'removed' | 'absent';
}

export function installOpenCodePlugin(loc: OpenCodePluginLocation, launcher: readonly string[]): OpenCodePluginChange {
  const ref = refOf(loc);
  const text = pluginSource(launcher);
  mkdirSync(dirname(ref.file), { recursive: true });
  if (loc.scope === 'project') refuseLinkedFolder(dirname(ref.file), fail);
  const { result } = editSettingsFiles(
    [ref],
    ([read]) => {
      if (read!.exists && !isOurs(read!.text))
        throw fail(`${read!.file} exists and is not agent-rewind's plugin; it was left as it is (move it away to install ours)`);
      return { texts: [text], result: !read!.exists ? 'added' : read!.text === text ? 'unchanged' : 'updated' };
    },
    fail,
  );
  return { pluginFile: ref.file, action: result as OpenCodePluginChange['action'] };
}

export function uninstallOpenCodePlugin(loc: OpenCodePluginLocation): OpenCodePluginChange {
  const ref = refOf(loc);
  const read = readSettingsFile(ref, fail);
  if (!read.exists) return { pluginFile: ref.file, action: 'absent' };
  if (!isOurs(read.text)) throw fail(`${read.file} is not agent-rewind's plugin; it was left as it is`);
  unlinkSync(read.target);
  return { pluginFile: ref.file, action: 'removed' };
}

/** The events ours handles when it is installed there (empty: not installed). */
export function openCodePluginInstalled(loc: OpenCodePluginLocation): string[] {
  try {
    const read = readSettingsFile(refOf(loc), fail);
    return read.exists && isOurs(read.text) ? ['chat.message', 'session.idle'] : [];
  } catch {
    return [];
  }
}
