// What the registry asks of VS Code's hooks before any handler is loaded: whether a hook input is VS Code's (VS Code
// also runs hook files written for other agents), and where its problems are logged. Kept small: the hook process and
// the service load it with the registry.
import { appendHookLog } from '../hook-log';

export const HOOK_LOG = 'vscode-chat-hooks.log';

/**
 * Whether a hook input came from VS Code's agent: its transcript is the chat extension's own, kept in the window's
 * storage folder (`…/workspaceStorage/<window>/<chat extension>/transcripts/<session>.jsonl`); Claude Code's is under
 * its projects folder.
 */
export function isVscodeHookInput(input: Record<string, unknown>): boolean {
  const t = input.transcript_path;
  return typeof t === 'string' && /[\\/]workspaceStorage[\\/][^\\/]+[\\/][^\\/]+[\\/]transcripts[\\/][^\\/]+\.jsonl$/.test(t);
}

export function logVscodeHookProblem(home: string, message: string, event = '-', sessionId = '-'): void {
  appendHookLog(home, HOOK_LOG, `${event.slice(0, 60)} ${sessionId.slice(0, 80)} ${message}`);
}
