// Stand-in for `agent-rewind hook codex` until the CLI dispatches to the Codex handler: reads the hook input from
// stdin (bounded) and hands it to handleCodexHook with the agent-rewind home from AGENT_REWIND_HOME. Prints nothing.
import { handleCodexHook } from '../../../src/core/sources/codex/hook-handler';

const MAX = 4 * 1024 * 1024;
const chunks: Buffer[] = [];
let size = 0;
process.stdin.on('data', (c: Buffer) => {
  size += c.length;
  if (size <= MAX) chunks.push(c);
});
process.stdin.on('end', () => {
  void handleCodexHook(Buffer.concat(chunks).toString('utf8'), { home: process.env.AGENT_REWIND_HOME ?? '' }).finally(() => process.exit(0));
});
