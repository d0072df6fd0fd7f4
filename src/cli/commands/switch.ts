// `agent-rewind switch <session> <branch>`: Make another branch of a session active.
import { branchLine, conversationCommand } from './branches';

export const switchCommand = conversationCommand({
  name: 'switch',
  argument: '<branch>',
  act: (engine, file, name) => engine.switchBranch(file, name),
  line: branchLine,
});
