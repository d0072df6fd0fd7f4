// Child process of crash-recovery.test.ts: performs one real restore and is SIGKILLed at a random moment.
import { FileCheckpointer } from '../../../src/core/files';

async function main(): Promise<void> {
  const [ws, storeDir] = process.argv.slice(2);
  const fc = new FileCheckpointer({ workspaceRoot: ws!, home: storeDir!, storeDir });
  process.stdout.write('go\n');
  await fc.rewindFiles('s', 'u1', { anchor: { checkpointingEnabled: true, kind: 'user-message' } });
  process.stdout.write('done\n');
}
main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err));
  process.exit(1);
});
