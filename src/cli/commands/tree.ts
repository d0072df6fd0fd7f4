// `agent-rewind tree <session>`: every entry (id, parent, type, role, a text preview, label) and the leaf.
import type { Command } from '../command';
import { withViewArg } from '../session-arg';
import { forTerminal } from '../terminal-text';
import type { SessionView } from '../../core/sources';
import type { SessionEntry } from '../../core/session';

export interface TreeEntry {
  id: string;
  parentId: string | null;
  type: string;
  role?: string;
  preview?: string;
  label?: string;
}

const PREVIEW_CHARS = 80;

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content
    .map((b) => (b?.type === 'text' ? b.text : b?.type === 'toolCall' ? `[${b.name}]` : b?.type === 'image' ? '[image]' : ''))
    .filter(Boolean);
  return parts.length ? parts.join(' ') : undefined;
}

export function previewOf(e: SessionEntry): string | undefined {
  const raw =
    e.type === 'message'
      ? textOf((e.message as { content?: unknown } | undefined)?.content)
      : e.type === 'custom_message'
        ? textOf(e.content)
        : e.type === 'compaction' || e.type === 'branch_summary'
          ? typeof e.summary === 'string'
            ? e.summary
            : undefined
          : e.type === 'model_change'
            ? typeof e.model === 'string'
              ? e.model
              : undefined
            : e.type === 'thinking_level_change'
              ? String(e.thinkingLevel)
              : e.type === 'custom'
                ? String(e.customType)
                : e.type === 'label'
                  ? `${String(e.targetId)} → ${typeof e.label === 'string' ? e.label : '(cleared)'}`
                  : e.type === 'session_info'
                    ? String(e.name)
                    : undefined;
  if (raw === undefined) return undefined;
  const flat = raw.replace(/\s+/g, ' ').trim();
  if (flat.length <= PREVIEW_CHARS) return flat;
  // never end on the first half of a surrogate pair (an emoji cut in two prints as U+FFFD)
  const cut = /[\ud800-\udbff]/.test(flat[PREVIEW_CHARS - 2]!) ? PREVIEW_CHARS - 2 : PREVIEW_CHARS - 1;
  return flat.slice(0, cut) + '…';
}

export function treeOf(session: SessionView): { sessionId: string; file: string | undefined; leafId: string | null; entries: TreeEntry[] } {
  const entries = session.getEntries().map((e): TreeEntry => {
    const t: TreeEntry = { id: e.id, parentId: e.parentId, type: e.type };
    const role = e.type === 'message' ? (e.message as { role?: unknown } | undefined)?.role : undefined;
    if (typeof role === 'string') t.role = role;
    const preview = previewOf(e);
    if (preview !== undefined) t.preview = preview;
    const label = session.getLabel(e.id);
    if (label !== undefined) t.label = label;
    return t;
  });
  return { sessionId: session.sessionId, file: session.sessionRef, leafId: session.getLeafId(), entries };
}

/** Indented tree, children in file order; iterative so a 100,000-deep chain cannot overflow the stack. Entries whose
 *  parent is not in the file, and entries caught in a hand-made parent cycle, are shown as extra roots and say so. */
function render(tree: ReturnType<typeof treeOf>): string {
  const children = new Map<string | null, TreeEntry[]>();
  const ids = new Set(tree.entries.map((e) => e.id));
  for (const e of tree.entries) {
    const key = e.parentId !== null && ids.has(e.parentId) ? e.parentId : null;
    const siblings = children.get(key);
    if (siblings) siblings.push(e);
    else children.set(key, [e]);
  }
  const roots = children.get(null) ?? [];
  const note = (e: TreeEntry): string =>
    e.parentId !== null && !ids.has(e.parentId) ? ` (parent ${e.parentId} missing)` : roots.length > 1 && e.parentId === null ? ' (root)' : '';
  const out: string[] = [];
  const shown = new Set<string>();
  const walk = (start: TreeEntry, startNote: string): void => {
    const stack: { e: TreeEntry; depth: number; note: string }[] = [{ e: start, depth: 0, note: startNote }];
    while (stack.length) {
      const { e, depth, note: extra } = stack.pop()!;
      if (shown.has(e.id)) continue;
      shown.add(e.id);
      const kids = (children.get(e.id) ?? []).filter((k) => !shown.has(k.id));
      const pad = '  '.repeat(depth);
      const label = e.label ? ` [${e.label}]` : '';
      const preview = e.preview ? `: ${e.preview}` : '';
      out.push(forTerminal(`${pad}${e.id === tree.leafId ? '*' : '-'} ${e.id} ${e.role ?? e.type}${label}${extra}${preview}`, { oneLine: true }));
      // a single child continues at the same depth, so long linear chats stay readable
      const next = kids.length > 1 ? depth + 1 : depth;
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ e: kids[i]!, depth: next, note: '' });
    }
  };
  for (const root of roots) walk(root, note(root));
  // what no root reaches sits in a parent cycle (a hand edit): show it rather than hide it
  for (const e of tree.entries) if (!shown.has(e.id)) walk(e, ` (parent cycle through ${e.parentId})`);
  return out.length ? `${out.join('\n')}\nleaf: ${tree.leafId}` : '(empty session)';
}

export const treeCommand: Command = {
  usage: 'tree <session> [--json] [--home DIR]',
  positionals: ['<session>'],
  async run(ctx) {
    const tree = await withViewArg(ctx, ctx.positionals[0], async (s) => treeOf(s));
    ctx.out(tree, () => render(tree));
  },
};
