// The agent's checkpoint and rewind tools (docs/ARCHITECTURE.md, "Contracts: The agent's checkpoint and rewind
// tools"). Import from here rather than from the individual files.
export {
  AgentCheckpointTools,
  REWIND_REPORT_TYPE,
  type ToolResult,
  type ToolError,
  type CheckpointContext,
  type AgentCheckpointToolsOptions,
} from './checkpoint-tools';
export { checkpointInput, rewindInput, CHECKPOINT_TOOL, REWIND_TOOL, type CheckpointInput, type RewindInput } from './tool-schemas';
