// `agent-rewind restore <session> <name>`: Rewind to a named checkpoint (a new active branch whose head is its message).
import { branchLine, conversationCommand } from './branches';

export const restoreCommand = conversationCommand({
  name: 'restore',
  argument: '<name>',
  act: (engine, file, name) => engine.restoreCheckpoint(file, name),
  line: branchLine,
});
