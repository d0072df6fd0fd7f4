// `npm run bench [filter…] [--quick]`: runs every bench/*.bench.ts and rewrites BENCHMARKS.md.
// Each module measures its own reference in the same run, because this machine is shared and noisy:
// figures are reported as ratios against that reference, not as absolute targets.
// `npm run bench -- --compare <rev> [filter…] [--quick] [--rounds N]`: the same benches at an older revision and in
// this tree, interleaved in one run (bench/compare.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BenchModule, BenchSection } from './types';

// a fresh hook or CLI process measures a fresh process: no checkpoint service started behind it (service.bench.ts
// turns it on for its own auto-start series)
process.env.AGENT_REWIND_SERVICE_AUTOSTART ??= 'off';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const filters = args.filter((a) => !a.startsWith('--'));
const dir = __dirname;
const modules = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

const START = '<!-- bench:';
function sectionBlock(file: string, s: BenchSection, command: string): string {
  return `${START}${file} -->\n## ${s.title}\n\nMeasured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, with \`${command}\`.\n\n${s.markdown.trim()}\n\nResult: ${s.ok ? 'all targets met' : '**some targets missed** (see the table)'}\n<!-- /bench -->\n`;
}

async function main(): Promise<void> {
  const compare = (await import('./compare')).compareOptionsOf(args);
  if (compare) return (await import('./compare')).runCompare(compare);
  let doc: string;
  try {
    doc = readFileSync('BENCHMARKS.md', 'utf8');
  } catch {
    doc = '# Benchmarks\n\nEvery figure is a ratio against a reference measured in the same run; `npm run bench` rewrites the sections below.\n\n';
  }
  let allOk = true;
  for (const file of modules) {
    const mod = (await import(join(dir, file))) as BenchModule;
    console.log(`\n▶ ${file}${quick ? ' (quick)' : ''}`);
    const section = await mod.run({ quick });
    allOk &&= section.ok;
    console.log(section.markdown);
    if (quick) continue; // quick runs are smoke tests; they never rewrite the published figures
    const block = sectionBlock(file, section, `npm run bench -- ${file.replace('.bench.ts', '')}`);
    const re = new RegExp(`${START}${file.replace(/\./g, '\\.')} -->[\\s\\S]*?<!-- /bench -->\\n`);
    doc = re.test(doc) ? doc.replace(re, block) : doc + '\n' + block;
  }
  if (!quick) writeFileSync('BENCHMARKS.md', doc);
  console.log(allOk ? '\nall benchmark targets met' : '\nsome benchmark targets missed');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
