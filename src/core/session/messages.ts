// The agent messages that non-message entries turn into when a context is built. Shapes mirror pi's
// createCustomMessage / createBranchSummaryMessage / createCompactionSummaryMessage so both tools read the same thing.
import type { AgentMessage, ContentBlock } from './types';

export interface CustomAgentMessage extends AgentMessage {
  role: 'custom';
  customType: string;
  content: string | ContentBlock[];
  display: boolean;
  details?: unknown;
  timestamp: number;
}
export interface BranchSummaryAgentMessage extends AgentMessage {
  role: 'branchSummary';
  summary: string;
  fromId: string;
  timestamp: number;
}
export interface CompactionSummaryAgentMessage extends AgentMessage {
  role: 'compactionSummary';
  summary: string;
  tokensBefore: number | undefined;
  timestamp: number;
}

function epochMs(isoTimestamp: string): number {
  return new Date(isoTimestamp).getTime();
}

export function createCustomMessage(
  customType: string,
  content: string | ContentBlock[],
  display: boolean,
  details: unknown,
  timestamp: string,
): CustomAgentMessage {
  return { role: 'custom', customType, content, display, details, timestamp: epochMs(timestamp) };
}

export function createBranchSummaryMessage(summary: string, fromId: string, timestamp: string): BranchSummaryAgentMessage {
  return { role: 'branchSummary', summary, fromId, timestamp: epochMs(timestamp) };
}

export function createCompactionSummaryMessage(summary: string, tokensBefore: number | undefined, timestamp: string): CompactionSummaryAgentMessage {
  return { role: 'compactionSummary', summary, tokensBefore, timestamp: epochMs(timestamp) };
}
