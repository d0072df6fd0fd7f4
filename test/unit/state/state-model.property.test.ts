// Model-based property test for docs/ARCHITECTURE.md, state and artifacts: random invocations that set/delete keys in all three scopes and save
// artifacts, interleaved with rewinds before random invocations of the active path. After every step the folded
// state and the artifacts' bytes must equal the model's, and the context must end just before the rewound invocation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import fc from 'fast-check';
import { BlobStore } from '../../../src/core/session';
import { SessionState } from '../../../src/core/state/session-state';
import { newSession, readAsPi, texts, user, withTempHome } from '../branches/session-fixture';

type Op =
  | { kind: 'invoke' }
  | { kind: 'set'; key: string; value: number }
  | { kind: 'delete'; key: string }
  | { kind: 'artifact'; name: string; content: string }
  | { kind: 'rewind'; at: number };

const key = fc.constantFrom('app:a', 'app:b', 'user:a', 'user:b', 'a', 'b');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'invoke' }),
  fc.record({ kind: fc.constant('set' as const), key, value: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ kind: fc.constant('set' as const), key, value: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ kind: fc.constant('delete' as const), key }),
  fc.record({ kind: fc.constant('artifact' as const), name: fc.constantFrom('x.txt', 'y.txt'), content: fc.string({ maxLength: 4 }) }),
  fc.record({ kind: fc.constant('rewind' as const), at: fc.nat() }),
);

interface Frame {
  id: string;
  text: string;
  stateBefore: Record<string, number>;
  artifactsBefore: Record<string, string>;
}

test('state and artifact rewinds compose like the model "state before each invocation"', { timeout: 180_000 }, () =>
  fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 24 }), (ops) =>
      withTempHome(async (home) => {
        const session = newSession(home);
        const state = new SessionState(session, { blobs: new BlobStore(join(home, 'blobs')), warn: (m) => assert.fail(m) });
        let frames: Frame[] = [];
        let current: Record<string, number> = {};
        let artifacts: Record<string, string> = {};
        let n = 0;
        for (const o of ops) {
          if (o.kind === 'invoke') {
            const text = `u${n++}`;
            frames.push({ id: session.appendMessage(user(text)), text, stateBefore: { ...current }, artifactsBefore: { ...artifacts } });
          } else if (o.kind === 'set') {
            await state.updateState({ [o.key]: o.value });
            current = { ...current, [o.key]: o.value };
          } else if (o.kind === 'delete') {
            await state.updateState({ [o.key]: null });
            const { [o.key]: _gone, ...rest } = current;
            current = rest;
          } else if (o.kind === 'artifact') {
            await state.saveArtifact(o.name, new TextEncoder().encode(o.content), 'text/plain');
            artifacts = { ...artifacts, [o.name]: o.content };
          } else {
            if (frames.length === 0) continue;
            const i = o.at % frames.length;
            await state.rewind({ sessionId: session.sessionId, rewindBeforeInvocationId: frames[i]!.id });
            current = { ...frames[i]!.stateBefore };
            artifacts = { ...frames[i]!.artifactsBefore };
            frames = frames.slice(0, i);
          }
          assert.deepEqual(state.getState(), current);
          const now = state.snapshotAt().artifacts.map((a) => a.name);
          assert.deepEqual(now, Object.keys(artifacts).sort());
          for (const [name, content] of Object.entries(artifacts)) assert.equal((await state.loadArtifact(name))?.bytes.toString(), content);
          assert.deepEqual(
            texts(session.buildSessionContext()),
            frames.map((f) => f.text),
          );
        }
        await session.flush();
        assert.deepEqual(
          texts((await readAsPi(session.sessionFile!)).context),
          frames.map((f) => f.text),
        );
      }),
    ),
    { numRuns: Number(process.env.AGENT_REWIND_PROPERTY_RUNS ?? 60) },
  ),
);
