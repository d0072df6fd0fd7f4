// Loads sql.js only when first used (the catalog, readers of agents that keep SQLite databases), from the wasm bytes on disk (`wasmBinary`): never through
// fetch or a locateFile URL, which the extension host and the CLI cannot rely on.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';

export const WASM_FILE_NAME = 'sql-wasm.wasm';

let loading: Promise<SqlJsStatic> | undefined;

/** Where the wasm is: next to the bundle (dist/extension.js, dist/cli.js; scripts/build.mjs copies it there),
 *  else in node_modules (tests and tsx run the sources). */
export function defaultWasmPath(): string {
  const nextToBundle = join(__dirname, WASM_FILE_NAME);
  if (existsSync(nextToBundle)) return nextToBundle;
  try {
    return require.resolve(`sql.js/dist/${WASM_FILE_NAME}`);
  } catch {
    throw new Error(`sql.js: ${WASM_FILE_NAME} was found neither at ${nextToBundle} nor in node_modules/sql.js/dist (rebuild with npm run build)`);
  }
}

/** The sql.js module, initialised once per process. sql.js itself keeps the first module it made, so the bytes
 *  passed on the first call are the ones used. */
export function loadSqlJs(wasmBinary?: Uint8Array): Promise<SqlJsStatic> {
  loading ??= (async () => {
    const bytes = wasmBinary ?? (await readFile(defaultWasmPath()));
    const { default: initSqlJs } = await import('sql.js');
    return initSqlJs({ wasmBinary: bytes });
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}
