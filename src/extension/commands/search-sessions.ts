// "Agent Rewind: Search sessions": a quick pick that searches the workspace's sessions as you type (full-text,
// through the catalog behind the engine) and shows each hit's message snippet, session and branch, grouped by
// session. Picking one opens that session's transcript scrolled to the message (or, when it is on another
// branch, with a banner that offers to switch there).
import * as vscode from 'vscode';
import { searchHitRows, type SessionSearchHit } from './search-hit-items';

export type { SessionSearchHit } from './search-hit-items';

export interface SearchSessionsDeps {
  search(query: string): Promise<readonly SessionSearchHit[]>;
  open(target: { sessionRef: string; entryId: string }): Promise<void> | void;
  /** Pause after the last keystroke before searching. Default 150 ms. */
  debounceMs?: number;
}

type Item = vscode.QuickPickItem & { target?: { sessionRef: string; entryId: string } };

function itemsOf(hits: readonly SessionSearchHit[]): Item[] {
  return searchHitRows(hits).map((row) =>
    row.separator
      ? { label: row.label, kind: vscode.QuickPickItemKind.Separator }
      : // the results are already what matched; VS Code's own fuzzy filter would hide phrase and prefix matches
        { label: row.label, description: row.description, detail: row.detail, alwaysShow: true, target: row.target },
  );
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
