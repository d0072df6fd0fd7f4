// The inputs of the agent's checkpoint and rewind tools (docs/ARCHITECTURE.md, the agent's checkpoint and rewind tools), as JSON schemas a host can hand to a model
// (e.g. VS Code's contributes.languageModelTools inputSchema) and as zod schemas that validate what comes back.
import { z } from 'zod';

export const checkpointInput = z.object({ goal: z.string().optional() }).strict();
export type CheckpointInput = z.infer<typeof checkpointInput>;

export const rewindInput = z.object({ report: z.string() }).strict();
export type RewindInput = z.infer<typeof rewindInput>;

export const CHECKPOINT_TOOL = {
  name: 'checkpoint',
  description:
    'Start an exploration you may want to take back: mark this point of the conversation, investigate freely, then call rewind with a concise report to drop the exploratory context and keep only the report. One active checkpoint at a time; not available in subagents.',
  inputSchema: {
    type: 'object',
    properties: { goal: { type: 'string', description: 'What the exploration is meant to find out.' } },
    additionalProperties: false,
  },
} as const;

export const REWIND_TOOL = {
  name: 'rewind',
  description:
    'End the active checkpoint: the conversation since the checkpoint is pruned at the end of this turn and replaced by your report. Put everything worth keeping in the report.',
  inputSchema: {
    type: 'object',
    properties: { report: { type: 'string', description: 'Investigation findings to keep after the rewind. Must not be empty.' } },
    required: ['report'],
    additionalProperties: false,
  },
} as const;
