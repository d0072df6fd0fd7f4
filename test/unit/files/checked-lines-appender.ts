// Child process of checked-lines.test.ts: appends numbered lines, one write each, as the store's writers do.
import { appendCheckedLines, encodeCheckedLine } from '../../../src/core/files/checked-lines';

const [file, count] = process.argv.slice(2);
for (let i = 0; i < Number(count); i++) appendCheckedLines(file!, encodeCheckedLine(JSON.stringify({ n: i, pad: 'x'.repeat(i % 300) })));
