// One of two REAL processes hammering the same session file with appends, rewinds, switches and checkpoints
// (test/unit/branches/two-process.test.ts). Prints what it did as JSON on stdout for the parent to verify.
// usage: node --import tsx test/multiprocess/hammer-session.ts <file> <home> <worker> <iterations> <seed> <startAtMs>
import { Conversation } from '../../src/core/branches/conversation';
import { SessionManager } from '../../src/core/session';
import { prng as mulberry32 } from '../support/prng';

async function main(): Promise<void> {
  const [file, home, worker, iterations, seed, startAt] = process.argv.slice(2);
  if (!file || !home || !worker) throw new Error('usage: hammer-session.ts <file> <home> <worker> <iterations> <seed> <startAtMs>');
  const random = mulberry32(Number(seed));
  const session = await SessionManager.open(file, { home, deferUntilAssistant: false });
  const conv = new Conversation(session, { warn: (m) => process.stderr.write(`${m}\n`) });
  const saved: { id: string; tag: string }[] = [];
  const created: string[] = [];
  const checkpoints: string[] = [];
  const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(random() * list.length)];
  await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));

  for (let i = 0; i < Number(iterations); i++) {
    const r = random();
    if (r < 0.45) {
      const tag = `${worker}:${i}`;
      const [id] = await conv.set({ role: i % 2 ? 'assistant' : 'user', content: tag, timestamp: Date.now() }).save();
      saved.push({ id: id!, tag });
    } else if (r < 0.65) {
      await session.syncFromDisk();
      const target = pick(session.getEntries().filter((e) => e.type === 'message'));
      if (target) created.push((await conv.rewind(target.id)).name);
    } else if (r < 0.85) {
      const target = pick(await conv.branches());
      if (target) await conv.switchBranch(target.name);
    } else {
      const name = `${worker}-cp-${i}`;
      await conv.checkpoint(name).then(
        () => checkpoints.push(name),
        (err: Error) => {
          if (!/no message yet/.test(err.message)) throw err;
        },
      );
    }
  }
  await session.close();
  process.stdout.write(JSON.stringify({ saved, created, checkpoints }));
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
