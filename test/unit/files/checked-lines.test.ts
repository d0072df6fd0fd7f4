import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { appendCheckedLines, CheckedLinesReader, encodeCheckedLine } from '../../../src/core/files/checked-lines';
import { tempBase } from './helpers';

const line = (n: number) => encodeCheckedLine(JSON.stringify({ n }));
const decodeValue = (v: unknown) => (typeof v === 'object' && v !== null && typeof (v as { n?: unknown }).n === 'number' ? (v as { n: number }).n : undefined);
const decode = { json: (json: string) => decodeValue(JSON.parse(json)) };

async function withFile(fn: (file: string) => Promise<void> | void): Promise<void> {
  const base = await tempBase('arw-checked-lines-');
  try {
    await fn(join(base.dir, 'lines.jsonl'));
  } finally {
    await base.cleanup();
  }
}

test('lines appended after a read are the only ones parsed by the next read, and the values are those of a full read', async () => {
  await withFile((file) => {
    for (let i = 0; i < 5; i++) appendCheckedLines(file, line(i));
    const reader = new CheckedLinesReader(file, decode);
    assert.deepEqual(reader.read(), { values: [0, 1, 2, 3, 4], damaged: false, known: 0 });
    appendCheckedLines(file, line(5) + line(6));
    const r = reader.read()!;
    assert.equal(r.known, 5, 'the first five were not parsed again');
    assert.deepEqual([...r.values], [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual([...new CheckedLinesReader(file, decode).read()!.values], [...r.values]);
    assert.equal(reader.read()!.known, 7, 'nothing new: nothing parsed');
  });
});

test('a file rewritten in place (same size, an earlier line changed), cut short or replaced is read again from its start', async () => {
  await withFile((file) => {
    for (let i = 0; i < 4; i++) appendCheckedLines(file, line(i));
    const reader = new CheckedLinesReader(file, decode);
    reader.read();
    // in place, the same length, then grown: the prefix the reader parsed is not the file's any more
    writeFileSync(file, line(0) + line(7) + line(2) + line(3) + line(4));
    let r = reader.read()!;
    assert.equal(r.known, 0);
    assert.deepEqual([...r.values], [0, 7, 2, 3, 4]);
    truncateSync(file, line(0).length + line(7).length);
    r = reader.read()!;
    assert.deepEqual([...r.values], [0, 7]);
    const other = file + '.new';
    writeFileSync(other, line(9) + line(8) + line(7));
    renameSync(other, file);
    r = reader.read()!;
    assert.deepEqual([...r.values], [9, 8, 7]);
  });
});

test('a line cut short is not read until its newline; a damaged line is damage, and a damaged file is read whole again', async () => {
  await withFile((file) => {
    appendCheckedLines(file, line(0));
    const half = line(1).slice(0, 6);
    appendFileSync(file, half);
    const reader = new CheckedLinesReader(file, decode);
    assert.deepEqual(reader.read(), { values: [0], damaged: false, known: 0 });
    appendFileSync(file, line(1).slice(6));
    assert.deepEqual([...reader.read()!.values], [0, 1], 'the rest of the line arrived');
    appendFileSync(file, half);
    appendCheckedLines(file, line(2)); // the cut line gets its newline first: it is a damaged line now
    const r = reader.read()!;
    assert.equal(r.damaged, true);
    assert.deepEqual([...r.values], [0, 1, 2]);
    // a flipped byte in a line read before
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('{"n":0}', '{"n":5}'));
    const again = reader.read()!;
    assert.equal(again.damaged, true);
    assert.deepEqual([...again.values], [1, 2]);
  });
});

test('read while another process appends: every read is a prefix of what was written, never damage', { timeout: 120_000 }, async () => {
  const base = await tempBase('arw-checked-lines-');
  try {
    const script = join(base.dir, 'appender.cjs');
    await build({
      entryPoints: [join(__dirname, 'checked-lines-appender.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: script,
      logLevel: 'error',
    });
    const file = join(base.dir, 'lines.jsonl');
    const count = 3000;
    const child = spawn(process.execPath, [script, file, String(count)], { stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let done = false;
    void exited.then(() => (done = true));
    const reader = new CheckedLinesReader(file, { json: (j) => (JSON.parse(j) as { n: number }).n });
    let reads = 0;
    let longest = 0;
    let extended = 0;
    while (!done) {
      const r = reader.read();
      if (r) {
        reads++;
        assert.equal(r.damaged, false);
        r.values.forEach((n, i) => assert.equal(n, i));
        assert.ok(r.values.length >= longest);
        if (r.known > 0) extended++;
        longest = r.values.length;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(await exited, 0);
    const last = reader.read()!;
    assert.deepEqual(last.damaged, false);
    assert.equal(last.values.length, count);
    assert.ok(reads > 5 && extended > 0, `reads ${reads}, incremental ${extended}`);
  } finally {
    await base.cleanup();
  }
});
