// Issue 27's property: session A (ours) and session B (Claude Code, through its hook handler) take turns and overlap
// in one folder, and the user edits in between. Every edit writes content never written before, so the model knows
// who made each file's state: whoever's turns were open when it was written (A, B, both, or nobody: the user).
// The dry run must name exactly that; the default rewind must bring back exactly A's files, byte for byte; with both
// options every file comes back; each undo must put the folder back exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { FileCheckpointer } from '../../../src/core/files';
import { runAgentHook } from '../../../src/cli/commands/hook';
import { fingerprint, readTree, tempBase, userAnchor, writeTree } from './helpers';

const FILES = ['one.txt', 'two.txt', 'dir/three.txt', 'four.txt'];
const B = 'dddddddd-1111-4222-8333-444444444444';

type Step = { t: 'a-prompt' } | { t: 'a-end' } | { t: 'b-prompt' } | { t: 'b-end' } | { t: 'edit'; file: number } | { t: 'remove'; file: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ t: 'a-prompt' }),
  fc.constant<Step>({ t: 'a-end' }),
  fc.constant<Step>({ t: 'b-prompt' }),
  fc.constant<Step>({ t: 'b-end' }),
  fc.record({ t: fc.constant('edit' as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ t: fc.constant('edit' as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ t: fc.constant('remove' as const), file: fc.nat(FILES.length - 1) }),
);

async function runCase(steps: Step[]): Promise<void> {
  const base = await tempBase('arw-attr-prop-');
  const ws = join(base.dir, 'ws');
  const home = join(base.dir, 'home');
  const start = Object.fromEntries(FILES.map((f) => [f, `${f} at start\n`]));
  await writeTree(ws, start);
  const a = new FileCheckpointer({ workspaceRoot: ws, home });
  const hook = async (input: object) =>
    assert.equal(
      await runAgentHook(['claude'], {
        stdin: Readable.from([Buffer.from(JSON.stringify({ session_id: B, cwd: ws, ...input }))]),
        env: { AGENT_REWIND_HOME: home },
      }),
      0,
    );
  try {
    // A's first prompt is the one rewound to; the steps come after it
    await a.snapshot('A', 'a1', 'user-message');
    let aOpen = true;
    let bOpen: string | undefined;
    let n = 1;
    let bn = 0;
    let writes = 0;
    const writer = new Map<string, string>(); // who made each file's present state since a1
    const gone = new Set<string>(); // removed since a1, and not written again
    const removedOnce = new Set<string>(); // removed at some point since a1: "absent" is a state already made
    const actor = () => (aOpen && bOpen ? 'several' : aOpen ? 'this-session' : bOpen ? 'other-session' : 'user');
    for (const s of steps) {
      if (s.t === 'a-prompt') (await a.snapshot('A', `a${++n}`, 'user-message'), (aOpen = true));
      else if (s.t === 'a-end' && aOpen) (await a.snapshot('A', `r${n}`, 'turn-end'), (aOpen = false));
      else if (s.t === 'b-prompt') ((bOpen = `p-${++bn}`), await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: bOpen, prompt: 'go' }));
      else if (s.t === 'b-end' && bOpen) (await hook({ hook_event_name: 'Stop', prompt_id: bOpen, stop_hook_active: false }), (bOpen = undefined));
      else if (s.t === 'edit') {
        const f = FILES[s.file]!;
        await writeFile(join(ws, f), `${f} write ${++writes}\n`);
        writer.set(f, actor());
        gone.delete(f);
      } else if (s.t === 'remove') {
        const f = FILES[s.file]!;
        // a second removal would make the same state again (also after the file was written anew in between: the
        // folder is then as the first removal left it, which made that state): the model keeps to states made once
        if (removedOnce.has(f) || !(await readFile(join(ws, f)).catch(() => undefined))) continue;
        await rm(join(ws, f));
        writer.set(f, actor());
        gone.add(f);
        removedOnce.add(f);
      }
    }
    const dry = await a.rewindFiles('A', 'a1', { dryRun: true, anchor: userAnchor });
    assert.equal(dry.canRewind, true, dry.error);
    assert.deepEqual(
      Object.fromEntries(dry.files.map((f) => [f.path, f.changedBy])),
      Object.fromEntries([...writer].sort(([x], [y]) => (x < y ? -1 : 1))),
      'each file is attributed to whoever made its present state',
    );
    const before = await fingerprint(ws);
    const now = await readTree(ws);
    const ours = [...writer].filter(([, w]) => w === 'this-session').map(([f]) => f);
    await a.rewindFiles('A', 'a1', { anchor: userAnchor });
    const expected = { ...now };
    for (const f of ours) expected[f] = start[f]!;
    assert.deepEqual(await readTree(ws), expected, "the default rewind brings back exactly this session's files");
    if (ours.length) await a.undoLastRewind('A');
    assert.deepEqual(await fingerprint(ws), before, 'undo puts everything back');
    if (writer.size) {
      await a.rewindFiles('A', 'a1', { anchor: userAnchor, overwriteUserModified: true, includeOtherSessions: true });
      assert.deepEqual(await readTree(ws), start, 'with both options every file comes back');
      await a.undoLastRewind('A');
      assert.deepEqual(await fingerprint(ws), before, 'and its undo puts everything back');
    }
  } finally {
    await a.dispose();
    await base.cleanup();
  }
}

test('attribution: the dry run names who made each file, the default rewind restores exactly this session’s files, undo is exact', async () => {
  await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), runCase), { numRuns: 25 });
});
