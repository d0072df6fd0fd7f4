// Claude Code's prompt records (sources/prompt-records.ts) under `<home>/claude/prompts/`: its UserPromptSubmit hook
// writes one per prompt (with the prompt id since 2.1.196, equal to the transcript line's `promptId`, verified on
// 2.1.330), and the reader ties each to its transcript line.
import * as records from '../prompt-records';

export { isSafeSessionId, matchPromptRecords, promptRecordSchema, sha256Hex } from '../prompt-records';
export type { PromptRecord, TranscriptPrompt } from '../prompt-records';

const FOLDER = 'claude';

export const promptsDir = (home: string): string => records.promptsDir(home, FOLDER);
export const promptRecordsFile = (home: string, sessionId: string): string => records.promptRecordsFile(home, FOLDER, sessionId);
export const appendPromptRecord = (home: string, sessionId: string, rec: records.PromptRecord): void =>
  records.appendPromptRecord(home, FOLDER, sessionId, rec);
export const readPromptRecords = (home: string, sessionId: string): records.PromptRecord[] => records.readPromptRecords(home, FOLDER, sessionId);
