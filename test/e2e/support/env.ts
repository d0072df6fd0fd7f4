// What scripts/e2e.mjs prepared for the tests, passed through the environment.
import { join, resolve } from 'node:path';

export interface E2eEnv {
  repo: string;
  runDir: string;
  resultsDir: string;
  codeServer: string;
  chromium: string;
  /** The unpacked .vsix folder (agent-rewind.agent-rewind-<version>). */
  extension: string;
  /** The unpacked host-test runner extension folder. */
  hostRunner: string;
  /** Also write key-moment screenshots to docs/screenshots (npm run test:e2e -- --update-screenshots). */
  updateScreenshots: boolean;
}

let cached: E2eEnv | undefined;

export function e2eEnv(): E2eEnv {
  if (cached) return cached;
  const need = (name: string): string => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set: run the end-to-end tests through \`npm run test:e2e\` (scripts/e2e.mjs)`);
    return v;
  };
  const repo = resolve(need('AGENT_REWIND_E2E_REPO'));
  cached = {
    repo,
    runDir: need('AGENT_REWIND_E2E_RUN_DIR'),
    resultsDir: process.env.AGENT_REWIND_E2E_RESULTS || join(repo, 'test-results', 'e2e'),
    codeServer: need('AGENT_REWIND_E2E_CODE_SERVER'),
    chromium: need('AGENT_REWIND_E2E_CHROMIUM'),
    extension: need('AGENT_REWIND_E2E_EXTENSION'),
    hostRunner: need('AGENT_REWIND_E2E_HOST_RUNNER'),
    updateScreenshots: process.env.AGENT_REWIND_E2E_UPDATE_SCREENSHOTS === '1',
  };
  return cached;
}
