// dist/cli.js: runs the CLI's bundle (dist/cli-bundle.js, built from main.ts) through the code cache (code-cache.ts).
import { join } from 'node:path';
import { runBundle } from './code-cache';

runBundle(join(__dirname, 'cli-bundle.js'), module, process.argv[2]);
