// Subagent (Task/Agent tool) conversations. They live in <project>/<sessionId>/subagents/agent-<id>.jsonl, in older
// versions in <project>/agent-<id>.jsonl beside the session (their lines carry the parent's sessionId), and in the
// oldest as isSidechain lines of the main file. Each is attached to the tool call whose result names its agentId;
// without one, to the Task/Agent call whose `prompt` input is the subagent's first prompt.
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { openRegularFile, readRegularFile } from '../../agent-files';
import type { SubagentView } from '../session-view';
import { pathToLeaf } from '../../session/context';
import { splitClaudeLines, str, obj, type RawLine } from './lines';
import { normalizeLines, type NormalizedTree } from './normalize';

const AGENT_FILE = /^agent-(.+)\.jsonl$/;
const SIDE_FILE_PREFIX_BYTES = 16 * 1024;

interface LoadedAgent {
  agentId: string;
  tree: NormalizedTree;
  file?: string;
}

export async function loadSubagents(
  sessionRef: string,
  sessionId: string,
  main: NormalizedTree,
  sidechainLines: RawLine[],
): Promise<Map<string, SubagentView[]>> {
  const agents: LoadedAgent[] = [];
  const projectDir = dirname(sessionRef);
  const nested = join(projectDir, sessionId, 'subagents');
  for (const name of await listAgentFiles(nested)) {
    const file = join(nested, name);
    const tree = await readAgentFile(file);
    if (tree) agents.push({ agentId: AGENT_FILE.exec(name)![1]!, tree, file });
  }
  const known = new Set(agents.map((a) => a.agentId));
  for (const name of await listAgentFiles(projectDir)) {
    const agentId = AGENT_FILE.exec(name)![1]!;
    if (known.has(agentId)) continue;
    const file = join(projectDir, name);
    if (!(await belongsTo(file, sessionId))) continue;
    const tree = await readAgentFile(file);
    if (tree) agents.push({ agentId, tree, file });
  }
  // sidechain lines of the main file, one conversation per agent id
  const byAgent = new Map<string, RawLine[]>();
  for (const l of sidechainLines) {
    const id = str(l.rec.agentId) ?? '';
    let list = byAgent.get(id);
    if (!list) byAgent.set(id, (list = []));
    list.push(l);
  }
  for (const [agentId, lines] of byAgent) if (!known.has(agentId)) agents.push({ agentId, tree: normalizeLines(lines, { includeSidechains: true }) });

  // tool calls and the agents their results name, over the main conversation and every subagent (agents nest)
  const trees = [main, ...agents.map((a) => a.tree)];
  const toolCallOfAgent = new Map<string, string>();
  for (const t of trees) for (const [call, agent] of t.agentOfToolCall) toolCallOfAgent.set(agent, call);
  const out = new Map<string, SubagentView[]>();
  for (const a of agents) {
    let callId = toolCallOfAgent.get(a.agentId);
    const firstPrompt = a.tree.prompts[0]?.text;
    if (!callId && firstPrompt !== undefined) callId = callByPrompt(trees, firstPrompt);
    if (!callId) continue;
    const input = obj(findCall(trees, callId)?.input);
    const title = [str(input?.subagent_type), str(input?.description)].filter(Boolean).join(': ') || `agent ${a.agentId}`;
    const leaf = a.tree.leafId === null ? undefined : a.tree.byId.get(a.tree.leafId);
    const view: SubagentView = {
      toolCallId: callId,
      agentId: a.agentId,
      title,
      entries: leaf ? pathToLeaf(leaf, a.tree.byId) : [],
      ...(a.file ? { file: a.file } : {}),
    };
    let list = out.get(callId);
    if (!list) out.set(callId, (list = []));
    list.push(view);
  }
  return out;
}

function findCall(trees: NormalizedTree[], callId: string) {
  for (const t of trees) {
    const c = t.toolCalls.get(callId);
    if (c) return c;
  }
  return undefined;
}

function callByPrompt(trees: NormalizedTree[], prompt: string): string | undefined {
  for (const t of trees) {
    for (const [id, c] of t.toolCalls) if ((c.name === 'Task' || c.name === 'Agent') && str(obj(c.input)?.prompt) === prompt) return id;
  }
  return undefined;
}

async function listAgentFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => AGENT_FILE.test(n)).sort();
  } catch {
    return [];
  }
}

async function readAgentFile(file: string): Promise<NormalizedTree | undefined> {
  try {
    return normalizeLines(splitClaudeLines(await readRegularFile(file)).lines, { includeSidechains: true });
  } catch {
    return undefined; // vanished or unreadable: the main conversation still reads
  }
}

/** An old-layout agent file beside the session belongs to it when its lines carry the session's id. */
async function belongsTo(file: string, sessionId: string): Promise<boolean> {
  let fh;
  try {
    fh = await openRegularFile(file);
    const buf = Buffer.alloc(SIDE_FILE_PREFIX_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const nl = buf.subarray(0, bytesRead).indexOf(10);
    const first = buf.toString('utf8', 0, nl === -1 ? bytesRead : nl);
    return str((JSON.parse(first) as Record<string, unknown>).sessionId) === sessionId;
  } catch {
    return false;
  } finally {
    await fh?.close();
  }
}
