// The readers of other agents' sessions, in one list, so the extension and the CLI read the same kinds. Adding an agent
// is one more folder under src/core/sources and one more line here.
import type { EngineSettings } from '../settings/settings';
import { ClaudeSource } from './claude/claude-source';
import { CodexSource } from './codex/codex-source';
import type { SourceAdapter } from './source-adapter';

export function foreignSources(settings: EngineSettings): SourceAdapter[] {
  return [new ClaudeSource({ enabled: settings.includeClaudeSessions, home: settings.home }), new CodexSource({ enabled: settings.includeCodexSessions })];
}

/** The foreign adapter that reads `file` (from its first line), if any. */
export function foreignOwner(adapters: readonly SourceAdapter[], file: string, firstLine: string | undefined): SourceAdapter | undefined {
  return adapters.find((a) => !a.writable && a.owns(file, firstLine));
}
