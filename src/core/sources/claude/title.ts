// The name a person recognises a session by: their own (/rename: custom-title), else Claude's (ai-title), else an
// older `summary` line — only when it names a leaf of this file, since summaries can land in another session's file —
// else the first real prompt. The latest line of each kind wins (a session can be renamed).
import { oneLine } from '../../transcript/transcript';
import { str, type ClaudeRecord } from './lines';

const TITLE_LENGTH = 120;

export class TitleCollector {
  private custom: string | undefined;
  private ai: string | undefined;
  private readonly summaries: { leafUuid: string; summary: string }[] = [];

  /** Takes a transcript line if it names the session; returns whether it did. */
  add(rec: ClaudeRecord): boolean {
    switch (rec.type) {
      case 'custom-title': {
        const t = str(rec.customTitle) ?? str(rec.title);
        if (t?.trim()) this.custom = t;
        return true;
      }
      case 'ai-title': {
        const t = str(rec.aiTitle) ?? str(rec.title);
        if (t?.trim()) this.ai = t;
        return true;
      }
      case 'summary': {
        const summary = str(rec.summary);
        const leafUuid = str(rec.leafUuid);
        if (summary?.trim() && leafUuid) this.summaries.push({ leafUuid, summary });
        return true;
      }
      default:
        return false;
    }
  }

  title(hasUuid: (uuid: string) => boolean, firstPrompt: string | undefined): string {
    let summary: string | undefined;
    for (const s of this.summaries) if (hasUuid(s.leafUuid)) summary = s.summary;
    return oneLine(this.custom ?? this.ai ?? summary ?? firstPrompt ?? '', TITLE_LENGTH);
  }
}
