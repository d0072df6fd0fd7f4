// Error texts are part of the contract (docs/ARCHITECTURE.md, branches and checkpoints): callers and the CLI show them verbatim.

export class MessageNotFoundError extends Error {
  constructor(readonly messageId: string) {
    super(`Message "${messageId}" not found`);
  }
}

export class MessageInOtherChatError extends Error {
  constructor(
    readonly messageId: string,
    readonly otherSessionId?: string,
  ) {
    super(`Message "${messageId}" belongs to a different chat`);
  }
}

export class NotAMessageError extends Error {
  constructor(
    readonly entryId: string,
    entryType: string,
  ) {
    super(`Entry "${entryId}" is a ${entryType} entry, not a message`);
  }
}

export class BranchNotFoundError extends Error {
  constructor(readonly branchName: string) {
    super(`Branch "${branchName}" not found`);
  }
}

/** The checkpoint record names a message whose line is gone (deleted by hand, or unreadable). */
export class CheckpointTargetMissingError extends Error {
  constructor(
    readonly checkpointName: string,
    readonly messageId: string,
  ) {
    super(`Checkpoint "${checkpointName}" points at message "${messageId}", which is no longer in this session`);
  }
}

export class CheckpointNotFoundError extends Error {
  constructor(readonly checkpointName: string) {
    super(`Checkpoint "${checkpointName}" not found`);
  }
}
