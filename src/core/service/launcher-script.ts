// The `agent-rewind` launcher script: what terminals and the agents' hooks run. The VS Code extension writes one in
// its global storage (cli-launcher.ts), `agent-rewind hooks install` one in <home>/bin. On POSIX its hook branch is the
// hooks' fast path: `hook claude|codex` (and nothing more) first goes to the checkpoint service's hook endpoint with
// sh + perl (perl-hook-client.ts: builtins only, the quickest client to start), else sh + curl (hook-endpoint.ts),
// because a Node start-up alone costs several times the service's snapshot. When no service listens, neither client is
// there, or the service declines (409: not served / other options / past the deadline; 413; 503), the same stdin goes
// to the Node hook (`cli.js hook …`), which tries the line protocol and then its own snapshot. An answer — done, bad
// input, wrong secret, failed — or a timeout ends the hook: the service may have taken the snapshot in time (never
// after the deadline the request carries), and a second one would not fit in Claude Code's 30 s. The hook always
// exits 0 (2 would block the prompt) and prints nothing. The secret is read by perl itself, or with the `read` builtin
// and piped with the `printf` builtin for curl: never on any argv.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { hookAgents } from '../sources/registry';
import { PERL_HOOK_CLIENT } from './perl-hook-client';

/** POSIX shell single-quoting, so paths with spaces or quotes pass through as they are. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface LauncherScriptOptions {
  /** The CLI's script (dist/cli.js), absolute. */
  cliJs: string;
  /** 'electron': VS Code's runtime, used as Node only when no `node` is on PATH (the extension's launcher);
   *  'node': exactly this Node (the CLI writes the one it runs on). */
  runtimeKind: 'electron' | 'node';
  runtime: string;
  /** The agent-rewind home the hooks use, when it is not the CLI's own resolution ($AGENT_REWIND_HOME, else
   *  ~/.agent-rewind): baked in, and passed to the Node hook as --home. */
  home?: string;
  /** Who writes (and rewrites) the script, for its comment line. */
  writtenBy: string;
  platform?: NodeJS.Platform;
  /** The agents whose `hook <id>` takes the fast path (default: the registry's agents with hooks). */
  hookAgents?: readonly LauncherHookAgent[];
  /** Modules of extra agents the writer loaded (agentRewind.agentModules): the CLI it starts loads them through
   *  $AGENT_REWIND_AGENT_MODULES (unless the caller's environment sets it), so `hook <id>` and `hooks install <id>` of
   *  such an agent work from an agent's hook and from the extension alike. */
  agentModules?: readonly string[];
}

/** What the launcher's shell text needs of an agent with hooks (sources/agent.ts AgentHooks). */
export interface LauncherHookAgent {
  id: string;
  /** The variable naming the project folder, forwarded to the service (line 2 of the request). */
  projectDirVariable?: string;
  /** Its log has event and session columns, written as `-` by the launcher. */
  logColumns?: number;
}

const SHELL_WORD = /^[a-z][a-z0-9-]*$/;
const SHELL_VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function registryHookAgents(): LauncherHookAgent[] {
  return hookAgents().map((a) => ({ id: a.id, projectDirVariable: a.hooks!.projectDirVariable, logColumns: a.hooks!.logColumns }));
}

/** curl's time limit for a hook, below Claude Code's 30 s hook timeout. */
export const HOOK_CURL_MAX_SECONDS = 28;

export function launcherScript(o: LauncherScriptOptions): string {
  const platform = o.platform ?? process.platform;
  const modules = o.agentModules?.length ? o.agentModules.join(platform === 'win32' ? ';' : ':') : undefined;
  if (platform === 'win32') {
    const setModules = modules ? `if not defined AGENT_REWIND_AGENT_MODULES set "AGENT_REWIND_AGENT_MODULES=${modules}"\r\n` : '';
    return `@echo off\r\n${setModules}where node >nul 2>nul && (node "${o.cliJs}" %*) || (set ELECTRON_RUN_AS_NODE=1 && "${o.runtime}" "${o.cliJs}" %*)\r\n`;
  }
  const cli = shQuote(o.cliJs);
  const rt = shQuote(o.runtime);
  const run =
    o.runtimeKind === 'node'
      ? [`arw_cli() { ${rt} ${cli} "$@"; }`]
      : [`arw_cli() {`, `  if command -v node >/dev/null 2>&1; then node ${cli} "$@"; else ELECTRON_RUN_AS_NODE=1 ${rt} ${cli} "$@"; fi`, `}`];
  const exec =
    o.runtimeKind === 'node'
      ? [`exec ${rt} ${cli} "$@"`]
      : [`if command -v node >/dev/null 2>&1; then exec node ${cli} "$@"; fi`, `ELECTRON_RUN_AS_NODE=1 exec ${rt} ${cli} "$@"`];
  const home = o.home ? `arw_home=${shQuote(o.home)}` : 'arw_home=${AGENT_REWIND_HOME:-$HOME/.agent-rewind}';
  const homeArg = o.home ? ' --home "$arw_home"' : '';
  // the Perl client only where its sockaddr_un layout is known (perl-hook-client.ts); elsewhere curl as before
  const perl = ['linux', 'darwin', 'freebsd', 'openbsd', 'netbsd'].includes(platform);
  // ids and variable names go into the shell text as they are: only plain words (the registry's ids are)
  const agents = (o.hookAgents ?? registryHookAgents()).filter(
    (a) => SHELL_WORD.test(a.id) && (a.projectDirVariable === undefined || SHELL_VARIABLE.test(a.projectDirVariable)),
  );
  const ids = agents.map((a) => a.id).join('|') || 'no-agent';
  const casesOf = (pick: (a: LauncherHookAgent) => string | undefined) =>
    agents.flatMap((a) => {
      const body = pick(a);
      return body ? [`${a.id}) ${body} ;;`] : [];
    });
  const logPrefix = casesOf((a) => (a.logColumns ? `arw_pre="${' -'.repeat(a.logColumns)}"` : undefined));
  const projectDir = casesOf((a) => (a.projectDirVariable ? `arw_dir=\${${a.projectDirVariable}-}` : undefined));
  return [
    '#!/bin/sh',
    `# agent-rewind, ${o.writtenBy}`,
    `# \`hook ${ids}\`: sh + perl or curl to the checkpoint service when it runs, else the Node hook (src/core/service/launcher-script.ts)`,
    ...(modules ? [`AGENT_REWIND_AGENT_MODULES=\${AGENT_REWIND_AGENT_MODULES:-${shQuote(modules)}}`, 'export AGENT_REWIND_AGENT_MODULES'] : []),
    ...run,
    `arw_hook_agent() { case $1 in ${ids}) return 0 ;; esac; return 1; }`,
    'if [ "$#" -eq 2 ] && [ "$1" = hook ] && arw_hook_agent "$2"; then',
    `  ${home}`,
    '  case $arw_home in /*) ;; *) arw_home=$PWD/$arw_home ;; esac',
    '  arw_agent=$2',
    '  arw_log() {',
    '    mkdir -p "$arw_home/logs" 2>/dev/null',
    '    arw_pre=',
    ...(logPrefix.length ? [`    case $arw_agent in ${logPrefix.join(' ')} esac`] : []),
    '    printf \'%s%s %s\\n\' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$arw_pre" "$1" >>"$arw_home/logs/$arw_agent-hooks.log" 2>/dev/null',
    '  }',
    '  arw_sock=$arw_home/service/hook.sock',
    // an agent that names the project folder in a variable (its hooks' projectDirVariable) has it forwarded; the
    // others' handlers take the folder from the payload
    '  arw_dir=',
    ...(projectDir.length ? [`  case $arw_agent in ${projectDir.join(' ')} esac`] : []),
    // AGENT_REWIND_SERVICE=off: the Node hook ignores the service too; a folder name with a line break does not fit
    // the body's second line
    '  arw_fast=1',
    '  if [ "${AGENT_REWIND_SERVICE-}" = off ]; then arw_fast=; fi',
    "  case $arw_dir in *'",
    "'*) arw_fast= ;; esac",
    ...(perl
      ? [
          // perl reads the secret and the stdin itself and says on its first line of output what came of it; the
          // agent's stdin stays on fd 3 for the Node hook when perl stopped before reading it (nothing said)
          `  if [ -n "$arw_fast" ] && [ -S "$arw_sock" ] && command -v perl >/dev/null 2>&1; then`,
          `    arw_pl=${shQuote(PERL_HOOK_CLIENT)}`,
          `    { perl -e "$arw_pl" "$arw_sock" "$arw_home/service/secret" "$arw_dir" "$arw_agent" ${HOOK_CURL_MAX_SECONDS} 3<&- 2>/dev/null | {`,
          '      IFS= read -r arw_l',
          '      case $arw_l in',
          '        D) ;;',
          `        U) arw_log "the checkpoint service refused the secret in $arw_home/service/secret; no snapshot taken" ;;`,
          `        T) arw_log "the checkpoint service did not answer within ${HOOK_CURL_MAX_SECONDS} s; this prompt may have no snapshot (the service takes none after the hook gave up)" ;;`,
          `        F) arw_cli hook "$arw_agent"${homeArg} 3<&- ;;`,
          `        *) arw_cli hook "$arw_agent"${homeArg} <&3 3<&- ;;`,
          '      esac',
          '    }; } 3<&0',
          '    exit 0',
          '  fi',
        ]
      : []),
    '  arw_secret=',
    '  if [ -n "$arw_fast" ] && [ -S "$arw_sock" ] && command -v curl >/dev/null 2>&1 &&',
    '    { IFS= read -r arw_secret <"$arw_home/service/secret" || [ -n "$arw_secret" ]; } 2>/dev/null; then',
    // kept: the Node hook needs the same stdin when the service declines
    '    arw_input=$(cat)',
    // curl -q (first): no ~/.curlrc, so a user's curl settings (a proxy, --fail, other output) cannot change what the
    // hook sends or how the answer is read, and the lookup is not paid on each prompt
    // the moment curl gives up (--max-time), whole seconds: the service never acts on the hook after it
    `    arw_deadline=$(( $(date +%s) + ${HOOK_CURL_MAX_SECONDS} ))`,
    `    arw_code=$(printf '%s\\n%s\\n%s' "$arw_secret" "$arw_dir" "$arw_input" | curl -q -s -o /dev/null -w '%{http_code}' -H 'Expect:' -H "X-Agent-Rewind-Deadline: $arw_deadline" --max-time ${HOOK_CURL_MAX_SECONDS} --unix-socket "$arw_sock" --data-binary @- "http://agent-rewind/hook/$arw_agent")`,
    '    arw_rc=$?',
    '    case $arw_rc:$arw_code in',
    '      0:200 | 0:400 | 0:500) exit 0 ;;',
    '      0:401) arw_log "the checkpoint service refused the secret in $arw_home/service/secret; no snapshot taken"; exit 0 ;;',
    `      28:*) arw_log "the checkpoint service did not answer within ${HOOK_CURL_MAX_SECONDS} s; this prompt may have no snapshot (the service takes none after the hook gave up)"; exit 0 ;;`,
    '    esac',
    `    printf '%s' "$arw_input" | arw_cli hook "$arw_agent"${homeArg}`,
    '    exit 0',
    '  fi',
    // no service here (no socket, no curl): the Node hook reads the agent's stdin itself
    `  arw_cli hook "$arw_agent"${homeArg}`,
    '  exit 0',
    'fi',
    ...exec,
    '',
  ].join('\n');
}

/** Writes a launcher (temp file + rename, 0755), so a hook starting meanwhile runs the old one or the new one whole. */
export function writeLauncher(file: string, script: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, script, { mode: 0o755, flag: 'wx' });
  try {
    chmodSync(tmp, 0o755);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
