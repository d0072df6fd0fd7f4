// Builds the optional native lstat batch (native/stat_batch.c) with node-gyp, run by npm at install. Optional: where
// it cannot be built (no compiler, Windows), a fresh process uses its JavaScript stat pass, so the install goes on.
import { spawnSync } from 'node:child_process';

if (process.platform === 'win32') {
  console.log('agent-rewind: the native stat batch is not built on Windows (the JavaScript stat pass is used)');
  process.exit(0);
}
// npm names its own node-gyp (and the headers to build against, through its config) while it runs a script
const gyp = process.env.npm_config_node_gyp;
// node-gyp's own output is pages long: kept out of the install, shown only when the build fails and asked for
const quiet = { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' };
const r = gyp ? spawnSync(process.execPath, [gyp, 'rebuild', '--loglevel=error'], quiet) : spawnSync('node-gyp', ['rebuild', '--loglevel=error'], quiet);
if (r.status !== 0) {
  console.warn('agent-rewind: the native stat batch was not built; fresh processes use the JavaScript stat pass (slower on big workspaces)');
  if (process.env.AGENT_REWIND_NATIVE_VERBOSE) process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
}
