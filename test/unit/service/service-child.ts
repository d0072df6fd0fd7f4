// Child process of tests that need a checkpoint service in a process of its own (to SIGSTOP it, or to start two at
// once): argv is the home, the folders (JSON) and the checkpointer options (JSON, or "cli"). Prints "ready" once it listens, or
// "refused <message>" when another service of the home runs; stops (saving its stat cache) on SIGTERM. With
// ARW_CHILD_WAIT=1 it first prints "loaded" and starts only on a line on its stdin, so that several start at once.
import { CheckpointService, ServiceRunningError } from '../../../src/core/service';
import { cliCheckpointerOptions } from '../../../src/core/settings/settings-file';

const [home, workspaces, checkpointer] = process.argv.slice(2);
const service = new CheckpointService({
  home: home!,
  workspaces: JSON.parse(workspaces!) as string[],
  // "cli": the options a CLI hook uses (the settings file), so that the hook endpoint answers hooks
  checkpointer: checkpointer === 'cli' ? (root) => cliCheckpointerOptions(home!, root, () => {}) : JSON.parse(checkpointer ?? '{}'),
});
process.once('SIGTERM', () => void service.stop().then(() => process.exit(0)));
const begin = () =>
  service.start().then(
    () => process.stdout.write('ready\n'),
    (err: Error) => {
      if (err instanceof ServiceRunningError) {
        process.stdout.write(`refused ${err.message}\n`);
        process.exit(3);
      }
      process.stderr.write(String(err?.stack ?? err));
      process.exit(1);
    },
  );
if (process.env.ARW_CHILD_WAIT === '1') {
  process.stdout.write('loaded\n');
  process.stdin.once('data', () => void begin());
} else void begin();
