// Our own sessions and pi's and oh-my-pi's (one format) as the registry knows them (sources/agent.ts): the only
// sessions agent-rewind writes to, so a rewind is a new branch in the same file. No hooks: the CLI and the extension
// snapshot each user message as they append it.
import type { AgentAdapter } from '../agent';
import { INCLUDE_PI_SESSIONS } from './include-setting';

export const piAgent: AgentAdapter = {
  id: 'pi',
  displayName: 'pi',
  icon: 'terminal',
  kinds: [
    { id: 'agent-rewind', label: 'agent-rewind', icon: 'comment-discussion' },
    { id: 'pi', label: 'pi' },
    { id: 'omp', label: 'oh-my-pi' },
  ],
  capabilities: { rewindConversation: 'in-place', hookSnapshots: false, ownFileHistory: false },
  switchSettings: [INCLUDE_PI_SESSIONS],
  // required on first use, so a hook process or the service, which only route hooks, never evaluate the reader
  source: (settings) => new (require('./pi-source') as typeof import('./pi-source')).PiSource(settings.home),
};
