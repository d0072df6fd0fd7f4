// Claude Code transcripts are JSONL: the shared line reader (sources/jsonl-lines.ts), under the names this folder
// reads it by.
export {
  epochMs,
  forEachJsonLine as forEachClaudeLine,
  obj,
  splitJsonLines as splitClaudeLines,
  str,
  type JsonRecord as ClaudeRecord,
  type RawLine,
  type ScanResult,
  type SplitResult,
} from '../jsonl-lines';
