// Child process for catalog-kill.test.ts: keeps changing a session file and saving the catalog until it is killed.
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Catalog } from '../../../src/core/catalog';

const [home, sessions, file] = process.argv.slice(2) as [string, string, string];

async function main(): Promise<void> {
  const catalog = await Catalog.open({ home });
  for (let i = 0; ; i++) {
    await appendFile(
      join(sessions, file),
      JSON.stringify({
        type: 'message',
        id: `k${i}`,
        parentId: i === 0 ? '00000006' : `k${i - 1}`,
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: `round ${i}` },
      }) + '\n',
    );
    await catalog.refresh([{ path: sessions, source: 'pi' }]);
    await catalog.save();
    process.stdout.write(`saved ${i}\n`);
  }
}
void main();
