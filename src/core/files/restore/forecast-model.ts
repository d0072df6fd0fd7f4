// The workspace as it will be once pending recovery has run (recovery-forecast.ts), for a dry run to plan from: the
// scanned model with the paths recovery changes set to the states it leaves. Nothing is written; the folders on the
// way to a changed path are copies (without a hash, so a diff looks into them), every other node is the model's own.
import type { EntryState } from '../store/tree-diff';
import { nodeAt, type DirNode, type Node } from '../store/tree';

/** What a rewind's plan reads of the workspace (WorkspaceModel, or this view of it). */
export interface PlanModel {
  readonly root: DirNode;
  get(rel: string): Node | undefined;
  recentRead(rel: string, hash: string): Buffer | undefined;
  dropRecentReads(): void;
  /** Paths whose state is not what the disk holds now but what recovery will leave: not looked at on disk. */
  readonly forecast?: ReadonlyMap<string, EntryState>;
}

export class ForecastModel implements PlanModel {
  readonly root: DirNode;

  constructor(
    private readonly model: PlanModel,
    readonly forecast: ReadonlyMap<string, EntryState>,
    /** The contents of the files recovery leaves, by hash (read from the store). */
    private readonly blobs: ReadonlyMap<string, Buffer>,
  ) {
    this.root = copyDir(model.root);
    // shallowest first: a folder recovery makes is there before the files it puts into it
    const paths = [...forecast.keys()].sort((a, b) => a.split('/').length - b.split('/').length);
    for (const path of paths) this.set(path, forecast.get(path)!);
  }

  get(rel: string): Node | undefined {
    return nodeAt(this.root, rel);
  }

  recentRead(rel: string, hash: string): Buffer | undefined {
    if (this.forecast.has(rel)) return this.blobs.get(hash);
    return this.model.recentRead(rel, hash);
  }

  dropRecentReads(): void {
    this.model.dropRecentReads();
  }

  private set(path: string, state: EntryState): void {
    const parts = path.split('/');
    let dir = this.root;
    for (const name of parts.slice(0, -1)) {
      const child = dir.children.get(name);
      if (state === null && child?.kind !== 'dir') return; // gone with its folder (which recovery set before it)
      const copy: DirNode = child?.kind === 'dir' ? copyDir(child) : { kind: 'dir', mode: 0o755, children: new Map() };
      dir.children.set(name, copy);
      dir = copy;
    }
    const name = parts.at(-1)!;
    const old = dir.children.get(name);
    if (state === null) dir.children.delete(name);
    else if (state.kind === 'dir') {
      const copy: DirNode = old?.kind === 'dir' ? copyDir(old) : { kind: 'dir', mode: 0o755, children: new Map() };
      if (state.mode !== undefined) copy.mode = state.mode;
      dir.children.set(name, copy);
    } else {
      const size = this.blobs.get(state.hash)?.length ?? 0;
      dir.children.set(name, { kind: state.kind, mode: state.mode, hash: state.hash, size, mtimeMs: 0, ctimeMs: 0, ino: 0, dev: 0 });
    }
  }
}

/** A folder node of its own (children copied, no hash): changing it leaves the model's as it is. */
function copyDir(d: DirNode): DirNode {
  return { kind: 'dir', mode: d.mode, children: new Map(d.children) };
}
