import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileSessionStorage, MemorySessionStorage, type SessionStorage } from '../../../src/core/session/storage';
import { tempDir } from './helpers';

async function exercise(storage: SessionStorage, dir: string): Promise<void> {
  const file = join(dir, 'a', 'f.jsonl');
  storage.ensureDirSync(join(dir, 'a'));
  await storage.writeTextAtomic(file, 'héllo\nwörld\n');
  assert.equal(await storage.readText(file), 'héllo\nwörld\n');
  // a prefix never ends in half a character: "é" is two bytes, cut after its first
  assert.equal(await storage.readTextPrefix(file, 2), 'h');
  assert.equal(await storage.readTextPrefix(file, 3), 'hé');
  assert.equal((await storage.readBytesFrom(file, 7)).toString(), 'wörld\n');
  assert.equal(await storage.countNewlines(file), 2);
  const w = await storage.openWriter(file);
  await w.writeLine('third');
  await w.fsync();
  await w.close();
  assert.equal(await storage.readText(file), 'héllo\nwörld\nthird\n');
  await assert.rejects(w.writeLine('after close'));
  assert.deepEqual(storage.listFilesSync(join(dir, 'a')), ['f.jsonl']);
  assert.deepEqual(storage.listDirsSync(dir), ['a']);
  assert.deepEqual(storage.listFilesSync(join(dir, 'missing')), []);
  assert.equal(storage.statSync(join(dir, 'missing')), undefined);
  await storage.copyFile(file, file + '.bak');
  await assert.rejects(storage.copyFile(file, file + '.bak'), /EEXIST/);
  await storage.rename(file + '.bak', file + '.old');
  await storage.unlink(file + '.old');
  assert.equal(await storage.exists(file + '.old'), false);
}

test('FileSessionStorage: atomic writes leave no temp file; prefixes, tails, newline counts, writer', async (t) => {
  const dir = tempDir(t);
  await exercise(new FileSessionStorage(), dir);
  assert.deepEqual(readdirSync(join(dir, 'a')), ['f.jsonl']);
  // newline counting across the 64 KiB read chunks
  const big = join(dir, 'big');
  writeFileSync(big, 'x\n'.repeat(100_000));
  assert.equal(await new FileSessionStorage().countNewlines(big), 100_000);
  assert.equal(readFileSync(join(dir, 'a', 'f.jsonl'), 'utf8').split('\n').length, 4);
});

test('MemorySessionStorage behaves the same', async () => {
  await exercise(new MemorySessionStorage(), '/mem');
});
