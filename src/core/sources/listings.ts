// What the engine facade tells its callers (the extension's tree, status bar, panels, API, and tests) about sessions.
// Plain data, so the tree nodes can be built and tested without VS Code.
import type { SessionSource } from '../session/types';
import type { SessionRef, SessionStamp } from './session-ref';

export interface SessionListing {
  /** How its agent's adapter names it (session-ref.ts): hand it back to the engine, never open it as a path. */
  sessionRef: SessionRef;
  sessionId: string;
  title: string;
  source: SessionSource;
  /** Last modification of the session (ms since epoch): the tree sorts newest first by it. */
  modifiedMs: number;
  /** Its stamp (session-ref.ts) when the listing read it anyway (a row's version): a change that leaves it as listed
   *  refreshes nothing. */
  stamp?: SessionStamp;
  createdAt?: string;
  /** The folder the session worked in, when the listing knows it. */
  cwd?: string;
  /** Set for a fork (Rewind to here, `claude --fork-session`, a Codex fork): the session it was forked from, and the
   *  first prompt sent in the fork itself, which is what tells the forks of one session apart (their titles are the
   *  origin's), when the listing's read found one. */
  fork?: { originSessionId: string; firstOwnPrompt?: string };
  /** What the agent says about the session beside its name, in a few words (VS Code chat: its model and mode). */
  detail?: string;
}

export interface BranchListing {
  name: string;
  isActive: boolean;
  headEntryId: string;
  /** One line of the head message, for the tree. */
  headPreview: string;
  messageCount: number;
}

export interface NamedCheckpointListing {
  name: string;
  entryId: string;
  preview: string;
  createdAt?: string;
}

/** A file snapshot taken when a user message was sent (the one anchor: that message's id). */
export interface FileCheckpointListing {
  anchorEntryId: string;
  preview: string;
  files: number;
  createdAt?: string;
}

export interface SessionDetails {
  listing: SessionListing;
  branches: BranchListing[];
  namedCheckpoints: NamedCheckpointListing[];
  fileCheckpoints: FileCheckpointListing[];
  /** Lines the loader skipped (corrupt JSON, ...), shown so nothing is silently hidden. */
  problems: string[];
}
