// Child process for the session crash and concurrency tests (bundled by the tests with esbuild so it starts fast).
//   append-loop <file> <home>         append + flush forever, printing "ack <id>" after each flush resolves
//   tx-append <file> <home> <n> <tag> n transactions, each appending one user message, then exit
//   tx-hold <file> <home> <ms> <tag>  one transaction that appends "<tag> start", says "locked", waits ms (killed
//                                     there by the crash tests), appends "<tag> end"
import { SessionManager } from '../../src/core/session/session-manager';

async function main(): Promise<void> {
  const [mode, file, home, n, tag] = process.argv.slice(2);
  if (!mode || !file || !home) throw new Error('usage: session-child <mode> <file> <home> ...');
  const session = await SessionManager.open(file, { home, deferUntilAssistant: false });
  if (mode === 'append-loop') {
    process.stdout.write('ready\n');
    for (let i = 0; ; i++) {
      // a mix of small and larger lines so kills land in the middle of writes too
      const id = session.appendMessage({ role: i % 2 ? 'assistant' : 'user', content: `entry ${i} ${'x'.repeat((i * 997) % 6000)}` });
      await session.flush();
      process.stdout.write(`ack ${id}\n`);
    }
  }
  if (mode === 'tx-append') {
    for (let i = 0; i < Number(n); i++) {
      await session.transaction((s) => s.appendMessage({ role: 'user', content: `${tag} ${i}` }));
    }
    await session.close();
    return;
  }
  if (mode === 'tx-hold') {
    await session.transaction(async (s) => {
      s.appendMessage({ role: 'user', content: `${tag} start` });
      await s.flush();
      process.stdout.write('locked\n');
      await new Promise((r) => setTimeout(r, Number(n)));
      s.appendMessage({ role: 'user', content: `${tag} end` });
    });
    await session.close();
    return;
  }
  throw new Error(`unknown mode ${mode}`);
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err) + '\n');
  process.exit(1);
});
