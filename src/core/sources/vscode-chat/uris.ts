// VS Code stores URIs as their parts ({scheme, authority, path, …}) or as strings. A file of the workspace is a
// `file:` URI on the desktop and a `vscode-remote://<host>/…` URI under a remote or code-server, whose path is the
// path on the machine this runs on (code-server: the same machine).
import { fileURLToPath } from 'node:url';
import { obj, str } from '../jsonl-lines';

const LOCAL_SCHEMES = new Set(['file', 'vscode-remote', 'vscode-userdata']);

/** The file-system path a stored URI names, when it names one on this machine. */
export function uriPath(v: unknown): string | undefined {
  const parts = obj(v);
  if (parts) {
    const scheme = str(parts.scheme);
    const path = str(parts.path) ?? str(parts.fsPath);
    if (!scheme || !path || !LOCAL_SCHEMES.has(scheme)) return undefined;
    return toFsPath(path);
  }
  const text = str(v);
  if (!text) return undefined;
  try {
    const u = new URL(text);
    const scheme = u.protocol.replace(/:$/, '');
    if (!LOCAL_SCHEMES.has(scheme)) return undefined;
    if (scheme === 'file') return fileURLToPath(u);
    return toFsPath(decodeURIComponent(u.pathname));
  } catch {
    return undefined;
  }
}

function toFsPath(path: string): string {
  if (process.platform === 'win32' && /^\/[A-Za-z]:/.test(path)) return path.slice(1).replace(/\//g, '\\');
  return path;
}
