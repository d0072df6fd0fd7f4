// `agent-rewind checkpoint <session> <name>`: a named pointer to the active branch's head (reusing a name moves it).
import { forTerminal } from '../terminal-text';
import { conversationCommand } from './branches';

export const checkpointCommand = conversationCommand({
  name: 'checkpoint',
  argument: '<name>',
  act: (engine, file, name) => engine.createCheckpoint(file, name),
  line: (info) => `checkpoint ${forTerminal(info.name, { oneLine: true })} → message ${info.messageId}`,
});
