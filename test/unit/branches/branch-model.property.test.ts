// Model-based property test: random sequences of appends, rewinds (to any message of any branch), switches, edits
// and restores against a plain model of "branch name → messages". After every step our branches, the active
// branch's context, and what a last-entry-as-leaf reader (pi) sees must all match the model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Conversation } from '../../../src/core/branches/conversation';
import { nextBranchName } from '../../../src/core/branches/naming';
import { newSession, readAsPi, texts, user, withTempHome } from './session-fixture';

type Op =
  | { kind: 'append' }
  | { kind: 'rewind'; branch: number; at: number }
  | { kind: 'switch'; branch: number }
  | { kind: 'edit'; at: number }
  | { kind: 'checkpoint' }
  | { kind: 'restore'; which: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'append' }),
  fc.constant<Op>({ kind: 'append' }),
  fc.record({ kind: fc.constant('rewind' as const), branch: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('switch' as const), branch: fc.nat() }),
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat() }),
  fc.constant<Op>({ kind: 'checkpoint' }),
  fc.record({ kind: fc.constant('restore' as const), which: fc.nat() }),
);

interface Msg {
  id: string;
  text: string;
}

test('branches behave like the model "name → messages" and pi sees the active branch', { timeout: 180_000 }, () =>
  fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 24 }), (ops) =>
      withTempHome(async (home) => {
        const session = newSession(home);
        const conv = new Conversation(session, { warn: (m) => assert.fail(m) });
        const model = new Map<string, Msg[]>([['main', []]]);
        const checkpoints: Msg[] = [];
        let active = 'main';
        let n = 0;
        const branchNew = (from: Msg[]) => {
          const name = nextBranchName(active, new Set(model.keys()));
          model.set(name, from);
          active = name;
        };
        for (const o of ops) {
          const current = model.get(active)!;
          if (o.kind === 'append') {
            const text = `m${n++}`;
            const [id] = await conv.set(user(text)).save();
            current.push({ id: id!, text });
          } else if (o.kind === 'rewind') {
            const names = [...model.keys()].filter((k) => model.get(k)!.length > 0);
            if (names.length === 0) continue;
            const msgs = model.get(names[o.branch % names.length]!)!;
            const target = msgs[o.at % msgs.length]!;
            await conv.rewind(target.id);
            branchNew(msgs.slice(0, msgs.indexOf(target) + 1));
          } else if (o.kind === 'switch') {
            const names = [...model.keys()];
            const name = names[o.branch % names.length]!;
            if (name === 'main' && model.size === 1) continue;
            await conv.switchBranch(name);
            active = name;
          } else if (o.kind === 'edit') {
            if (current.length === 0) continue;
            const k = o.at % current.length;
            const text = `edit${n++}`;
            const [id] = await conv.set(user(text), { id: current[k]!.id }).save();
            branchNew([...current.slice(0, k), { id: id!, text }]);
          } else if (o.kind === 'checkpoint') {
            if (current.length === 0) continue;
            await conv.checkpoint(`cp${checkpoints.length}`);
            checkpoints.push(current[current.length - 1]!);
          } else {
            if (checkpoints.length === 0) continue;
            const which = o.which % checkpoints.length;
            await conv.restore(`cp${which}`);
            const msg = checkpoints[which]!;
            const owner = [...model.values()].find((msgs) => msgs.includes(msg))!;
            branchNew(owner.slice(0, owner.indexOf(msg) + 1));
          }

          const snap = conv.snapshot();
          assert.equal(snap.active.name, active);
          assert.deepEqual(
            snap.branches.filter((b) => b.kind === 'tip'),
            [],
          );
          for (const b of snap.branches) {
            const expected = model.get(b.name);
            assert.ok(expected, `unexpected branch ${b.name}`);
            assert.deepEqual([b.name, b.headMessageId, b.messageCount], [b.name, expected.at(-1)?.id ?? null, expected.length]);
          }
          assert.equal(snap.branches.length, model.size);
          assert.deepEqual(
            texts(session.buildSessionContext(snap.active.leafId)),
            model.get(active)!.map((m) => m.text),
          );
        }
        await session.flush();
        const pi = await readAsPi(session.sessionFile!);
        assert.deepEqual(
          texts(pi.context),
          model.get(active)!.map((m) => m.text),
        );
      }),
    ),
    { numRuns: Number(process.env.AGENT_REWIND_PROPERTY_RUNS ?? 60) },
  ),
);
