// What `npm start` and the e2e setup say before they act: the Debian packages they install as root, and that an
// existing demo is reused (with how to get a fresh one). Pure, so test/unit/qa/start-notices.test.ts checks them.

/**
 * What installing the missing Debian packages runs, and what is said before: the packages, that it runs as root (or
 * through sudo), and how to do it yourself instead. `apt-get install` of a missing package may also upgrade packages
 * it depends on, which the announcement says as well.
 */
export function aptPlan(missing, isRoot) {
  const sudo = isRoot ? [] : ['sudo', '-n'];
  // Another apt run (unattended upgrades, a parallel setup) may hold the dpkg lock: wait for it instead of failing.
  const wait = ['-o', 'DPkg::Lock::Timeout=600'];
  const commands = [
    [...sudo, 'apt-get', ...wait, 'update'],
    [...sudo, 'apt-get', ...wait, 'install', '-y', '--no-install-recommends', ...missing],
  ];
  return {
    commands,
    announce: [
      `installing missing Debian packages ${isRoot ? 'as root' : 'as root through sudo'}: ${missing.join(' ')}`,
      `  (apt-get may upgrade packages they depend on; runs: ${commands.map((c) => c.join(' ')).join(' && ')})`,
      '  (to install them yourself instead, set AGENT_REWIND_NO_APT=1: you are then told what is missing, and nothing is installed)',
    ],
  };
}

/** Said when `npm start` opens the demo it made before instead of a new one. */
export function demoReuseNotice(demoDir, createdAt) {
  const when = createdAt.toISOString().slice(0, 16).replace('T', ' ');
  return `reusing the demo workspace and sessions made ${when} UTC in ${demoDir} (your changes there are kept); \`npm start -- --fresh\` makes a new one`;
}
