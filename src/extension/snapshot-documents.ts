// Read-only documents holding a file as it was at a user message's snapshot, for VS Code's diff editor
// (agent-rewind-snapshot:/<rel path>?<session file + anchor>). Nothing here can write: the scheme has no
// FileSystemProvider, so the editor opens them read-only.
import * as vscode from 'vscode';
import type { RewindEngine } from '../core/engine';

export const SNAPSHOT_SCHEME = 'agent-rewind-snapshot';

interface SnapshotQuery {
  sessionFile: string;
  anchorEntryId: string;
  /** Empty document: the side of a diff where the file does not exist. */
  empty?: boolean;
}

export function snapshotUri(relPath: string, query: SnapshotQuery, label: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SNAPSHOT_SCHEME, path: `/${relPath}`, query: JSON.stringify(query), fragment: label });
}

export class SnapshotDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly engine: RewindEngine) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    let query: SnapshotQuery;
    try {
      query = JSON.parse(uri.query) as SnapshotQuery;
    } catch {
      throw new Error(`Not an Agent Rewind snapshot: ${uri.toString()}`);
    }
    if (query.empty) return '';
    const bytes = await this.engine.fileAtAnchor(query.sessionFile, query.anchorEntryId, uri.path.replace(/^\//, ''));
    return bytes ? bytes.toString('utf8') : '';
  }
}
