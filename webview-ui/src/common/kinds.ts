// How each kind of transcript entry is named and drawn (role label + codicon), in both webviews.
import type { MessageKind } from '../../../src/shared/view-models';

export const KIND_META: Record<MessageKind, { label: string; icon: string }> = {
  user: { label: 'You', icon: 'account' },
  assistant: { label: 'Assistant', icon: 'sparkle' },
  toolCall: { label: 'Tool call', icon: 'tools' },
  toolResult: { label: 'Tool result', icon: 'output' },
  bash: { label: 'Shell', icon: 'terminal' },
  branchSummary: { label: 'Branch summary', icon: 'git-branch' },
  compaction: { label: 'Compaction', icon: 'fold' },
  custom: { label: 'Extension message', icon: 'extensions' },
  other: { label: 'Entry', icon: 'circle-small' },
};
