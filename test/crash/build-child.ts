// Bundles session-child.ts into one CommonJS file so each crash run starts in ~50 ms instead of going through tsx.
import { join } from 'node:path';
import { bundleForNode } from '../support/node-bundle';

export function buildSessionChild(outDir: string): string {
  return bundleForNode(join(__dirname, 'session-child.ts'), join(outDir, 'session-child.cjs'));
}
