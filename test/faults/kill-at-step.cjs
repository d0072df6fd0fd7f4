// Preloaded (`node --require`) into a CLI process by the fault suite's step trials (test/faults/run.ts): counts the
// file-system changes the process makes on its main thread (renames, unlinks, folder creations and removals, writes,
// mode changes, links) and SIGKILLs itself just before the Nth one (AGENT_REWIND_FAULT_KILL_AT=N), so that a trial
// can stop a command between every two of its steps, not at random moments. AGENT_REWIND_FAULT_COUNT=<file> writes
// the number of steps the whole run made to <file> instead (the calibration run).
'use strict';
const fs = require('node:fs');
const { isMainThread } = require('node:worker_threads');

const killAt = Number(process.env.AGENT_REWIND_FAULT_KILL_AT ?? 0);
const countFile = process.env.AGENT_REWIND_FAULT_COUNT;
const CHANGES = [
  'rename',
  'unlink',
  'mkdir',
  'rmdir',
  'rm',
  'writeFile',
  'appendFile',
  'write',
  'symlink',
  'link',
  'chmod',
  'fchmod',
  'copyFile',
  'truncate',
  'ftruncate',
  'utimes',
  'futimes',
];

if (isMainThread && (killAt > 0 || countFile)) {
  let steps = 0;
  const step = () => {
    steps++;
    if (steps === killAt) process.kill(process.pid, 'SIGKILL');
  };
  const wrap = (target, name) => {
    const original = target[name];
    if (typeof original !== 'function') return;
    target[name] = function (...args) {
      step();
      return original.apply(this, args);
    };
  };
  for (const name of CHANGES) {
    wrap(fs, name);
    wrap(fs, `${name}Sync`);
    wrap(fs.promises, name);
  }
  if (countFile) process.on('exit', () => fs.writeFileSync(countFile, String(steps)));
}
