// One run of one bench module of a given source tree, for `npm run bench -- --compare`: started with that tree as
// its working folder (its own sources, through tsx), it runs the module and prints its section as one JSON line
// after a marker, which the comparing process reads. It imports nothing from the tree it runs but that module, so the
// same child runs an older revision's benches as they were.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RESULT_MARKER } from './compare-figures';

async function main(): Promise<void> {
  const [root, file, ...flags] = process.argv.slice(2);
  if (!root || !file) throw new Error('usage: compare-child.ts <tree> <name>.bench.ts [--quick]');
  const mod = (await import(pathToFileURL(join(resolve(root), 'bench', file)).href)) as {
    run?: (o: { quick: boolean }) => Promise<{ title: string; markdown: string; ok: boolean }>;
  };
  const run = mod.run ?? (mod as { default?: typeof mod }).default?.run;
  if (!run) throw new Error(`${file} exports no run()`);
  const section = await run({ quick: flags.includes('--quick') });
  process.stdout.write(`\n${RESULT_MARKER}${JSON.stringify(section)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
