// Extension-host integration tests: mocha suites (test/host/suite) run inside real VS Code's extension host by
// the host-test runner extension; each mocha test becomes a subtest here so the closing lines say what passed.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostTestResults } from '../host/runner/run-mocha';
import { openVsCode, resultsDir, withArtifacts, type VsCode } from './support/vscode';
import { waitForJsonFile } from './support/wait';

describe('extension host: commands and exported API (mocha inside code-server)', () => {
  let vs: VsCode | undefined;
  const resultFile = join(resultsDir('host-tests'), 'results.json');
  before(async () => {
    vs = await openVsCode({
      name: 'host',
      hostTestsResultFile: resultFile,
      prepare: ({ workspace }) => {
        // A workspace for the API tests to snapshot and restore.
        writeFileSync(join(workspace, 'README.md'), 'host tests\n');
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  it('runs the host suites', (t) =>
    withArtifacts(
      () => vs,
      'host suites',
      async () => {
        const results = await waitForJsonFile<HostTestResults>(resultFile, 240_000, () => vs!.server.process.exitCode() !== null);
        assert.equal(results.fatal, undefined, `the host-test run crashed: ${results.fatal}`);
        for (const p of results.passes) await t.test(p.title, () => {});
        for (const p of results.pending) await t.test(p.title, { skip: 'pending' }, () => {});
        for (const f of results.failures) {
          await t.test(f.title, () => {
            throw new Error(f.error);
          });
        }
        assert.ok(results.passes.length + results.failures.length > 0, 'no host tests ran');
        assert.equal(results.failures.length, 0, `${results.failures.length} host test(s) failed`);
      },
    ));
});
