// OpenCode's prompt start on the hot path, as OpenCode 1.18 runs it: the plugin file `agent-rewind hooks install
// opencode --user` writes, imported by a Node process standing in for OpenCode (every exported plugin function called
// with OpenCode's context, once) whose `chat.message` hook is called and awaited at each prompt with an input and
// output shaped as 1.18.33 passes them (input: only sessionID set; output: the user message with its id, before
// OpenCode stores it, and its text part). The plugin runs the launcher `hooks install` wrote, which goes to `agent-rewind
// serve` running (sh + perl to its hook endpoint, its tree and watcher warm), snapshotting a 50,000-file workspace after
// 10 files changed — against a shadow git repository's `git add . && git commit` of the same change, right after, in
// the same run. Target (issue 25): the hook p50 ≤ 0.10× git add+commit.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FileCheckpointer } from '../src/core/files/file-checkpointer';
import { OPENCODE_HOOK_LOG } from '../src/core/sources/opencode/hook-handler';
import { bundleCliWithLauncher, copyWorkspaceWithShadowGit, hookLogOf, promptStartsThroughService, promptStartTable } from './bench-tools';
import type { BenchModule, BenchSection } from './types';
import { generateWorkspace } from './workspace-generator';

/** The stand-in for OpenCode: loads the plugin module as OpenCode does (every exported function is a plugin, called
 *  once with the context), then for each line on stdin (one prompt) calls every plugin's `chat.message` as OpenCode's
 *  Plugin.trigger does, awaited, and prints how long that took. */
const OPENCODE_STAND_IN = `
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
const [pluginFile, directory] = process.argv.slice(2);
const mod = await import(pathToFileURL(pluginFile).href);
const context = {
  client: {},
  project: { id: 'bench', worktree: directory, vcs: 'git', time: { created: Date.now() } },
  worktree: directory,
  directory,
  experimental_workspace: undefined,
  serverUrl: new URL('http://127.0.0.1:4096'),
  $: undefined,
};
const hooks = [];
for (const fn of Object.values(mod)) if (typeof fn === 'function') hooks.push(await fn(context));
if (!hooks.some((h) => typeof h['chat.message'] === 'function')) throw new Error('no chat.message hook in ' + pluginFile);
process.stdout.write('ready\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const { sessionID, messageID, partID, text } = JSON.parse(line);
  const input = { sessionID, agent: undefined, model: undefined, messageID: undefined, variant: undefined };
  const output = {
    message: { id: messageID, role: 'user', sessionID, time: { created: Date.now() }, agent: 'build', model: { providerID: 'fake', modelID: 'fake-model' } },
    parts: [{ type: 'text', text, id: partID, messageID, sessionID }],
  };
  const t = performance.now();
  for (const h of hooks) await h['chat.message']?.(input, output);
  process.stdout.write(JSON.stringify({ ms: performance.now() - t }) + '\\n');
}
`;

/** OpenCode's ids: a prefix, 12 hex digits of time and counter, 14 base-62 characters. */
function openCodeId(prefix: 'ses' | 'msg' | 'prt', n: number): string {
  const chars = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let tail = '';
  for (let i = 0, x = n * 7919 + 13; i < 14; i++, x = Math.floor(x / 62) + i * 31) tail += chars[x % 62];
  return `${prefix}_${(0x9d3b2f1a0000 + n).toString(16)}${tail}`;
}

/** The stand-in, started with the plugin loaded; `prompt` sends one prompt and resolves to its chat.message time. */
async function startOpenCodeStandIn(base: string, pluginFile: string, ws: string, env: NodeJS.ProcessEnv) {
  const script = join(base, 'opencode-stand-in.mjs');
  writeFileSync(script, OPENCODE_STAND_IN);
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [script, pluginFile, ws], { cwd: ws, env });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const r = await lines.next();
    if (r.done) throw new Error(`the OpenCode stand-in exited: ${stderr}`);
    return r.value;
  };
  if ((await next()) !== 'ready') throw new Error(`the OpenCode stand-in did not load the plugin: ${stderr}`);
  return {
    async prompt(sessionID: string, messageID: string, partID: string, text: string): Promise<number> {
      child.stdin.write(JSON.stringify({ sessionID, messageID, partID, text }) + '\n');
      return (JSON.parse(await next()) as { ms: number }).ms;
    },
    async stop(): Promise<void> {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.stdin.end();
      await exited;
      if (stderr) throw new Error(`the OpenCode stand-in wrote to stderr: ${stderr}`);
    },
  };
}

export async function run({ quick }: { quick: boolean }): Promise<BenchSection> {
  const fileCount = quick ? 2000 : 50_000;
  const rounds = quick ? 5 : 20;
  const gen = await generateWorkspace(fileCount);
  const base = await mkdtemp(join(tmpdir(), 'arw-opencode-plugin-bench-'));
  let openCode: Awaited<ReturnType<typeof startOpenCodeStandIn>> | undefined;
  try {
    const folder = await copyWorkspaceWithShadowGit(gen, base);
    const { ws, home } = folder;
    const { cli } = await bundleCliWithLauncher(base);
    const configHome = join(base, 'xdg-config');
    const env = { ...process.env, AGENT_REWIND_HOME: home, XDG_CONFIG_HOME: configHome };

    // the plugin as `hooks install opencode --user` writes it (it runs the launcher that install writes in the home)
    const installed = spawnSync(process.execPath, [cli, 'hooks', 'install', 'opencode', '--user', '--json'], { cwd: ws, env, encoding: 'utf8' });
    if (installed.status !== 0) throw new Error(`hooks install opencode failed: ${installed.stderr}`);
    const pluginFile = (JSON.parse(installed.stdout) as { file: string }).file;
    if (pluginFile !== join(configHome, 'opencode', 'plugins', 'agent-rewind.js')) throw new Error(`the plugin went to ${pluginFile}`);

    openCode = await startOpenCodeStandIn(base, pluginFile, ws, env);
    const sessionId = openCodeId('ses', 1);
    const messageIds: string[] = [];
    const prompt = () => {
      const n = messageIds.length + 1;
      messageIds.push(openCodeId('msg', n));
      return openCode!.prompt(
        sessionId,
        messageIds.at(-1)!,
        openCodeId('prt', n),
        'Refactor the snapshot code so that the store is opened once, and add a test for it.',
      );
    };
    const series = await promptStartsThroughService({ agent: 'opencode', gen, folder, cli, env, rounds, seed: 9700, prompt });
    await openCode.stop();

    const logged = hookLogOf(home, OPENCODE_HOOK_LOG);
    if (logged) throw new Error(`the hook logged problems:\n${logged}`);
    const fc = new FileCheckpointer({ workspaceRoot: ws, home });
    const anchors = (await fc.listSnapshots(sessionId)).filter((s) => s.kind === 'user-message').map((s) => s.anchorId);
    await fc.dispose();
    if (JSON.stringify(anchors) !== JSON.stringify(messageIds))
      throw new Error(`expected a snapshot under each prompt's message id, found ${anchors.join(', ')}`);

    const table = promptStartTable('chat.message', series);
    const markdown = [
      `Workspace: ${fileCount.toLocaleString('en-US')} files (${(gen.totalBytes / 1e6).toFixed(0)} MB), 10 files changed before each prompt, ${rounds} prompts. Ours: the plugin file \`agent-rewind hooks install opencode --user\` writes, imported by a Node process standing in for OpenCode 1.18, its \`chat.message\` hook called and awaited as OpenCode does at each prompt (input and output shaped as 1.18.33 passes them), timed in that process; the plugin runs the launcher \`hooks install\` wrote, with \`agent-rewind serve --workspace\` running; each prompt answered by the service's hook endpoint (its trace log), each snapshot filed under the prompt's message id. Reference: \`git add . && git commit\` of a shadow repository on the same tree, right after each hook.`,
      table.markdown,
    ].join(' ');
    return { title: 'OpenCode plugin (chat.message snapshot) with the service vs a shadow git commit', markdown, ok: table.ok };
  } catch (err) {
    // said before the clean-up, whose own error would hide it
    console.error(err);
    throw err;
  } finally {
    await openCode?.stop().catch(() => {});
    await rm(base, { recursive: true, force: true, maxRetries: 5 });
  }
}

export default { run } satisfies BenchModule;
