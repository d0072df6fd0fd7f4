// What "Compare…" compares: A, a branch of the session it was invoked on, and B, another branch of that session or a
// branch of another session of the workspace. A Claude Code or Codex session has one branch of its own and continues
// in forks (Rewind to here writes one), so B is offered among the session's forks and its origin first, then every
// other session; a session of one branch compares with those instead of stopping at "has only one branch" (issue 23).
// Asks through `ComparePicker`, so it is tested without VS Code.
import type { SessionDetails, SessionListing } from '../../core/engine';
import { nothingToCompareMessage } from './compare-messages';

/** What to compare: A of `sessionRef`, B of `sessionRefB` when set (another session), else of the same session. */
export interface CompareChoice {
  sessionRef: string;
  branchA: string;
  branchB: string;
  sessionRefB?: string;
}

export interface CompareTargetEngine {
  describeSession(sessionRef: string): Promise<SessionDetails>;
  listSessions(): Promise<SessionListing[]>;
}

/** A row of a pick; a row without `value` is a separator (a heading). */
export interface PickRow<T> {
  label: string;
  description?: string;
  detail?: string;
  value?: T;
}

export interface ComparePicker {
  /** The value of the row picked; undefined when dismissed. */
  pick<T>(rows: PickRow<T>[], opts: { title: string; placeHolder: string }): Promise<T | undefined>;
  inform(message: string): void;
}

type Other = { kind: 'branch'; name: string } | { kind: 'session'; sessionRef: string; title: string };

/**
 * The comparison for a command: `given` holds what its argument said (a branch row's branch is A; a full
 * { sessionRef, branchA, branchB[, sessionRefB] } asks nothing); the rest is asked. Undefined: dismissed, or nothing
 * to compare (then said).
 */
export async function chooseComparison(
  engine: CompareTargetEngine,
  ui: ComparePicker,
  given: { sessionRef: string; branchA?: string; branchB?: string; sessionRefB?: string },
): Promise<CompareChoice | undefined> {
  const { sessionRef } = given;
  const details = await engine.describeSession(sessionRef);
  const branchA =
    given.branchA ??
    (details.branches.length === 1
      ? details.branches[0]!.name
      : await ui.pick(branchRows(details), { title: 'Compare: the first branch (A, left)', placeHolder: 'A branch of this session (nothing is changed)' }));
  if (branchA === undefined) return undefined;
  if (given.branchB !== undefined) {
    const other = given.sessionRefB !== undefined && given.sessionRefB !== sessionRef ? { sessionRefB: given.sessionRefB } : {};
    return { sessionRef, branchA, branchB: given.branchB, ...other };
  }

  const rows = await otherRows(engine, details, branchA);
  if (!rows.some((r) => r.value)) {
    ui.inform(nothingToCompareMessage(details.listing.title));
    return undefined;
  }
  const other = await ui.pick(rows, {
    title: `Compare "${branchA}" of "${details.listing.title}" with… (B, right)`,
    placeHolder: 'Another branch of this session, or a branch of another session (nothing is changed)',
  });
  if (!other) return undefined;
  if (other.kind === 'branch') return { sessionRef, branchA, branchB: other.name };
  const theirs = await engine.describeSession(other.sessionRef);
  const branchB =
    theirs.branches.length === 1
      ? theirs.branches[0]!.name
      : await ui.pick(branchRows(theirs), { title: `Compare with which branch of "${other.title}"? (B, right)`, placeHolder: 'A branch of that session' });
  if (branchB === undefined) return undefined;
  return { sessionRef, branchA, branchB, sessionRefB: other.sessionRef };
}

function branchRows(details: SessionDetails, exclude?: string): PickRow<string>[] {
  return details.branches
    .filter((b) => b.name !== exclude)
    .map((b) => ({
      label: `${b.isActive ? '$(pass-filled)' : '$(git-branch)'} ${b.name}`,
      description: `${b.isActive ? 'active · ' : ''}${b.messageCount} message${b.messageCount === 1 ? '' : 's'}`,
      detail: b.headPreview,
      value: b.name,
    }));
}

/** B's candidates: this session's other branches, then its forks and its origin (and the origin's other forks), then
 *  every other session of the workspace, each group under a heading. */
async function otherRows(engine: CompareTargetEngine, details: SessionDetails, branchA: string): Promise<PickRow<Other>[]> {
  const all = await engine.listSessions();
  // the listing knows a fork's origin; a session's details may not
  const me = all.find((s) => s.sessionRef === details.listing.sessionRef) ?? details.listing;
  const sessions = all.filter((s) => s.sessionRef !== me.sessionRef);
  const originId = me.fork?.originSessionId;
  const related = (s: SessionListing) =>
    s.fork?.originSessionId === me.sessionId || s.sessionId === originId || (originId !== undefined && s.fork?.originSessionId === originId);
  const sessionRow = (s: SessionListing): PickRow<Other> => {
    const role =
      s.sessionId === originId ? 'the origin of this fork' : s.fork?.originSessionId === me.sessionId ? 'a fork of this session' : s.fork ? 'a fork' : '';
    return {
      label: `${s.fork ? '$(repo-forked)' : '$(comment-discussion)'} ${s.fork?.firstOwnPrompt ?? s.title}`,
      description: [role, s.fork?.firstOwnPrompt ? s.title : ''].filter(Boolean).join(' · '),
      value: { kind: 'session', sessionRef: s.sessionRef, title: s.title },
    };
  };
  const group = (heading: string, rows: PickRow<Other>[]): PickRow<Other>[] => (rows.length ? [{ label: heading }, ...rows] : []);
  const branches = branchRows(details, branchA).map((r): PickRow<Other> => ({ ...r, value: { kind: 'branch', name: r.value! } }));
  return [
    ...group('Branches of this session', branches),
    ...group('Its forks and origin', sessions.filter(related).map(sessionRow)),
    ...group('Other sessions of this workspace', sessions.filter((s) => !related(s)).map(sessionRow)),
  ];
}
