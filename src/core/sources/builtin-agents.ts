// The agents built in, in the order the tree and the listings show them: the one composition file that names them
// (registry.ts lists these and the ones registered at run time). Adding an agent: its folder, and one line here.
import type { AgentAdapter } from './agent';
import { claudeAgent } from './claude/agent';
import { codexAgent } from './codex/agent';
import { geminiAgent } from './gemini/agent';
import { openCodeAgent } from './opencode/agent';
import { piAgent } from './pi/agent';
import { vscodeChatAgent } from './vscode-chat/agent';

export const BUILTIN_AGENTS: readonly AgentAdapter[] = [piAgent, claudeAgent, codexAgent, openCodeAgent, geminiAgent, vscodeChatAgent];
