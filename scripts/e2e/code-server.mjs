// Starts real VS Code (code-server) on a free loopback port with a fresh user-data folder and its own extensions
// folder, and stops it again. Used by the e2e tests and by `npm start`.
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitForHttp } from './ports.mjs';
import { startProcess } from './processes.mjs';

// Keep the workbench quiet and predictable: no welcome page, walkthroughs, tips, update or telemetry prompts.
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.commandCenter.enabled': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
  'files.simpleDialog.enable': true,
  'window.restoreWindows': 'none',
  'editor.accessibilitySupport': 'off',
  'diffEditor.renderSideBySide': true,
};

/**
 * @param {object} o
 * @param {string} o.codeServer   code-server's out/node/entry.js
 * @param {string} o.dir          a fresh folder for this instance (user data, extensions, logs go inside)
 * @param {string} o.workspace    the folder VS Code opens
 * @param {string[]} o.extensions unpacked extension folders to install (copied in)
 * @param {Record<string,string>} [o.env]  extra environment (AGENT_REWIND_HOME, …)
 * @param {Record<string,unknown>} [o.settings] extra user settings
 * @param {Record<string,unknown>} [o.machineSettings] settings of the machine code-server runs on (user-data/Machine):
 *   where a window whose extensions run on a server reads machine-scoped settings (agentRewind.agentModules)
 * @param {number} [o.port]       a fixed port (npm start); a free one otherwise
 * @param {string} [o.node]       the Node that runs code-server (a newer code-server needs a newer one)
 */
export async function launchCodeServer({ codeServer, dir, workspace, extensions, env = {}, settings = {}, machineSettings, port, node = process.execPath }) {
  const userDataDir = join(dir, 'user-data');
  const extensionsDir = join(dir, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...USER_SETTINGS, ...settings }, null, 2));
  if (machineSettings) {
    mkdirSync(join(userDataDir, 'Machine'), { recursive: true });
    writeFileSync(join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(machineSettings, null, 2));
  }
  for (const ext of extensions) cpSync(ext, join(extensionsDir, ext.split(/[\\/]/).pop()), { recursive: true });
  const logFile = join(dir, 'code-server.log');
  // Its own config file, so code-server never writes ~/.config/code-server/config.yaml.
  const configFile = join(dir, 'code-server.yaml');
  writeFileSync(configFile, 'auth: none\n');

  // A port picked as free can be taken before code-server binds it: try again with another one.
  for (let attempt = 1; ; attempt++) {
    const p = port ?? (await freePort());
    const proc = startProcess(
      node,
      [
        codeServer,
        '--config',
        configFile,
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${p}`,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        '--user-data-dir',
        userDataDir,
        '--extensions-dir',
        extensionsDir,
        workspace,
      ],
      { env: { ...process.env, ...env }, cwd: dir, logFile },
    );
    const url = `http://127.0.0.1:${p}`;
    try {
      await waitForHttp(`${url}/healthz`, { timeoutMs: 90_000, isDead: () => proc.exitCode() !== null, describe: 'code-server' });
    } catch (e) {
      await proc.stop();
      if (attempt < 3 && port === undefined) continue;
      throw new Error(`${e.message} (log: ${logFile})`);
    }
    return {
      url,
      port: p,
      /** The workbench URL with the workspace folder open. */
      workbenchUrl: `${url}/?folder=${encodeURIComponent(workspace)}`,
      userDataDir,
      extensionsDir,
      logFile,
      process: proc,
      /** The extension host's log files (exthost.log and the extension output channels) of this instance. */
      extensionHostLogs: () => findFiles(join(userDataDir, 'logs'), (f) => /exthost|output_logging|remoteexthost/i.test(f)),
      stop: () => proc.stop(),
    };
  }
}

function findFiles(dir, keep) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? d.path, d.name))
    .filter(keep);
}
