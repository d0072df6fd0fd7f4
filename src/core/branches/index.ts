// Named branches and checkpoints over a session's entry tree (docs/ARCHITECTURE.md, "Contracts: Branches and
// checkpoints"). Import from here rather than from the individual files.
export { Conversation, type ConversationOptions, type RewindPreview, type PendingMessage } from './conversation';
export { deriveBranches, toBranchInfo, MAIN_BRANCH, type BranchInfo, type BranchView, type CheckpointInfo, type BranchesSnapshot } from './derive';
