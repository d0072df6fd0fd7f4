// "Agent Rewind: Search sessions": a quick pick that searches the workspace's sessions as you type (full-text,
// through the catalog behind the engine) and shows each hit's message snippet, session and branch, grouped by
// session. Picking one opens that session's transcript at the message.
import * as vscode from 'vscode';

/** What one search result needs to be shown (the engine's MessageHit fits). */
export interface SessionSearchHit {
  sessionFile: string;
  sessionTitle: string;
  entryId: string;
  kind: string;
  /** The snippet around the match. */
  preview: string;
  /** The branch the message is on, when known. */
  branch?: string;
  /** false: the message is only on another branch than the session's active one. */
  onActiveBranch?: boolean;
  timestamp?: string;
}

export interface SearchSessionsDeps {
  search(query: string): Promise<readonly SessionSearchHit[]>;
  open(target: { sessionFile: string; entryId: string }): Promise<void> | void;
  /** Pause after the last keystroke before searching. Default 150 ms. */
  debounceMs?: number;
}

type Item = vscode.QuickPickItem & { target?: { sessionFile: string; entryId: string } };

const KIND_ICONS: Record<string, string> = {
  user: 'account',
  assistant: 'hubot',
  toolCall: 'tools',
  toolResult: 'output',
  bash: 'terminal',
  branchSummary: 'git-branch',
  compaction: 'fold',
};

function branchText(hit: SessionSearchHit): string {
  if (hit.branch) return hit.onActiveBranch === false ? `$(git-branch) ${hit.branch} (not active)` : `$(git-branch) ${hit.branch}`;
  return hit.onActiveBranch === false ? '$(git-branch) on another branch' : '';
}

/** Hits grouped under a separator per session, in the order the search ranked the sessions. */
function itemsOf(hits: readonly SessionSearchHit[]): Item[] {
  const items: Item[] = [];
  let session: string | undefined;
  for (const hit of hits) {
    if (hit.sessionFile !== session) {
      session = hit.sessionFile;
      items.push({ label: hit.sessionTitle, kind: vscode.QuickPickItemKind.Separator });
    }
    items.push({
      label: `$(${KIND_ICONS[hit.kind] ?? 'comment'}) ${hit.preview}`,
      description: branchText(hit),
      detail: `${hit.sessionTitle} · ${hit.kind}${hit.timestamp ? ` · ${hit.timestamp.slice(0, 16).replace('T', ' ')}` : ''}`,
      // the results are already what matched; VS Code's own fuzzy filter would hide phrase and prefix matches
      alwaysShow: true,
      target: { sessionFile: hit.sessionFile, entryId: hit.entryId },
    });
  }
  return items;
}

export async function searchSessions(deps: SearchSessionsDeps): Promise<void> {
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = 'Agent Rewind: Search sessions';
  pick.placeholder = 'Search the messages of this workspace\'s sessions ("quotes" for a phrase)';
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;

  const run = async (query: string): Promise<void> => {
    const mine = ++generation;
    if (!query.trim()) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    pick.busy = true;
    try {
      const hits = await deps.search(query);
      if (mine !== generation) return;
      pick.items = hits.length ? itemsOf(hits) : [{ label: `No message matches "${query.trim()}"`, alwaysShow: true }];
    } catch (error) {
      if (mine !== generation) return;
      pick.items = [{ label: `$(error) Search failed: ${(error as Error)?.message ?? String(error)}`, alwaysShow: true }];
    } finally {
      if (mine === generation) pick.busy = false;
    }
  };

  const picked = new Promise<Item | undefined>((resolve) => {
    pick.onDidChangeValue((value) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void run(value), deps.debounceMs ?? 150);
    });
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      // accepting the "no match" line keeps the picker open
      if (item?.target) resolve(item);
    });
    pick.onDidHide(() => resolve(undefined));
  });
  pick.show();
  try {
    const item = await picked;
    if (item?.target) {
      pick.hide();
      await deps.open(item.target);
    }
  } finally {
    if (timer) clearTimeout(timer);
    generation++;
    pick.dispose();
  }
}
