// `agent-rewind rewind <session> <messageId>`: Branch from a message: a new active branch <current>-vN whose head is that message.
import { branchLine, conversationCommand } from './branches';

export const rewindCommand = conversationCommand({
  name: 'rewind',
  argument: '<messageId>',
  act: (conversation, messageId) => conversation.rewind(messageId),
  line: branchLine,
});
