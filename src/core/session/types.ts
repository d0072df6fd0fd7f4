// The session file format (docs/ARCHITECTURE.md, session files). Every shape here must round-trip unknown fields untouched:
// types are open (`[key: string]: unknown`) on purpose, because real files carry fields we do not know.

export const CURRENT_SESSION_VERSION = 3;

export interface SessionHeader {
  type: 'session';
  version?: number;
  id: string;
  timestamp: string;
  cwd: string;
  title?: string;
  parentSession?: string;
  [key: string]: unknown;
}

/** Newer oh-my-pi files may start with this line before the header. Kept verbatim. */
export interface TitleLine {
  type: 'title';
  [key: string]: unknown;
}

export interface EntryBase {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  [key: string]: unknown;
}

export interface TextContent {
  type: 'text';
  text: string;
  [key: string]: unknown;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  [key: string]: unknown;
}
export interface ThinkingContent {
  type: 'thinking';
  thinking: string;
  [key: string]: unknown;
}
export interface ToolCallContent {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: unknown;
  [key: string]: unknown;
}
export type ContentBlock = TextContent | ImageContent | ThinkingContent | ToolCallContent | { type: string; [key: string]: unknown };

/** An agent message as stored in a `message` entry. Roles seen in real files: user, assistant, toolResult,
 * bashExecution, custom (v3; `hookMessage` before), branchSummary, compactionSummary. */
export interface AgentMessage {
  role: string;
  content?: string | ContentBlock[];
  timestamp?: number;
  provider?: string;
  model?: string;
  [key: string]: unknown;
}

export interface MessageEntry extends EntryBase {
  type: 'message';
  message: AgentMessage;
}
export interface ThinkingLevelChangeEntry extends EntryBase {
  type: 'thinking_level_change';
  thinkingLevel: string;
}
export interface ModelChangeEntry extends EntryBase {
  type: 'model_change';
  model?: string;
  role?: string;
  provider?: string;
  modelId?: string;
}
export interface CompactionEntry extends EntryBase {
  type: 'compaction';
  summary: string;
  shortSummary?: string;
  firstKeptEntryId?: string;
  /** Legacy (v1) field; counts the header line as index 0. */
  firstKeptEntryIndex?: number;
  tokensBefore?: number;
  details?: unknown;
  preserveData?: unknown;
  fromExtension?: boolean;
}
export interface BranchSummaryEntry extends EntryBase {
  type: 'branch_summary';
  fromId: string;
  summary: string;
  details?: unknown;
  fromExtension?: boolean;
}
export interface CustomEntry extends EntryBase {
  type: 'custom';
  customType: string;
  data?: unknown;
}
export interface CustomMessageEntry extends EntryBase {
  type: 'custom_message';
  customType: string;
  content: string | ContentBlock[];
  display?: boolean;
  details?: unknown;
}
export interface LabelEntry extends EntryBase {
  type: 'label';
  targetId: string;
  label?: string;
}
export interface TtsrInjectionEntry extends EntryBase {
  type: 'ttsr_injection';
  injectedRules: string[];
}
export interface SessionInitEntry extends EntryBase {
  type: 'session_init';
  systemPrompt?: string;
  task?: string;
  tools?: string[];
  outputSchema?: unknown;
}
export interface ModeChangeEntry extends EntryBase {
  type: 'mode_change';
  mode: string;
  data?: unknown;
}
/** pi's session-info entry (session name). */
export interface SessionInfoEntry extends EntryBase {
  type: 'session_info';
  name?: string;
}

export type KnownEntry =
  | MessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | TtsrInjectionEntry
  | SessionInitEntry
  | ModeChangeEntry
  | SessionInfoEntry;

/** Any entry; unknown `type`s are kept and written back unchanged. */
export type SessionEntry = KnownEntry | EntryBase;

export const KNOWN_ENTRY_TYPES = [
  'message',
  'thinking_level_change',
  'model_change',
  'compaction',
  'branch_summary',
  'custom',
  'custom_message',
  'label',
  'ttsr_injection',
  'session_init',
  'mode_change',
  'session_info',
] as const;

/** Which kind of session it is (and so which agent wrote it): an id an agent of src/core/sources/registry.ts declares
 *  among its `kinds` ('agent-rewind' for ours). Opaque here: the registry gives its label, icon and capabilities. */
export type SessionSource = string;

export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  models: Record<string, string>;
  injectedTtsrRules: string[];
  mode: string;
  modeData?: unknown;
}
