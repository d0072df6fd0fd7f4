// Gemini CLI as the registry knows it (sources/agent.ts): its name and icon, what it can do and its reader.
import type { AgentAdapter } from '../agent';

export const geminiAgent: AgentAdapter = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  icon: 'terminal',
  kinds: [{ id: 'gemini', label: 'Gemini CLI' }],
  capabilities: { rewindConversation: 'fork', hookSnapshots: false, ownFileHistory: false },
  enabledSetting: 'includeGeminiCliSessions',
  // required on first use, so a hook process or the service, which only route hooks, never evaluate the reader
  source: (settings) => new (require('./gemini-source') as typeof import('./gemini-source')).GeminiSource({ recordsHome: settings.home }),
  resume: { program: 'gemini', commandSetting: 'gemini.command' },
};
