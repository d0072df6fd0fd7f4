// Tool calls as a person reads them, whichever agent made them: an edit as a diff of old → new text, a write as the
// file with its path, a shell call as the command, a read as the path, a patch as a diff. Anything else shows its
// arguments as JSON. The names and argument shapes are those of pi/oh-my-pi, Claude Code and Codex.

type Args = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A code fence that the content cannot close early. */
export function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/** Inline code that the content cannot close early. */
function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

const LANGUAGES: Record<string, string> = {
  ts: 'ts',
  tsx: 'tsx',
  js: 'js',
  jsx: 'jsx',
  mjs: 'js',
  cjs: 'js',
  json: 'json',
  md: 'markdown',
  py: 'python',
  rs: 'rust',
  go: 'go',
  java: 'java',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  sh: 'sh',
  bash: 'sh',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  html: 'html',
  css: 'css',
  sql: 'sql',
  swift: 'swift',
  kt: 'kotlin',
  php: 'php',
};

function languageOf(path: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext ? (LANGUAGES[ext] ?? '') : '';
}

/** Unified-diff-like lines: every old line removed, every new line added (the texts an edit tool swaps). */
function swapDiff(oldText: string, newText: string): string {
  const lines = (text: string, mark: string) => (text === '' ? [] : text.split('\n').map((l) => `${mark}${l}`));
  return [...lines(oldText, '-'), ...lines(newText, '+')].join('\n');
}

const pathOf = (a: Args): string | undefined => str(a.file_path) ?? str(a.path) ?? str(a.filePath) ?? str(a.notebook_path);

/** A path as the user thinks of it: relative to the session's folder when it is inside it. */
function shownPath(path: string, cwd: string | undefined): string {
  if (!cwd) return path;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) && path.length > base.length ? path.slice(base.length) : path;
}

/** How one tool call reads; `withName` puts the tool's name first (a message that also has text needs it). */
export function toolCallMarkdown(name: string, args: unknown, withName: boolean, cwd?: string): string {
  const a: Args = args && typeof args === 'object' && !Array.isArray(args) ? (args as Args) : {};
  const lower = name.toLowerCase();
  const head = (detail: string) => (withName ? `**${name}** ${detail}`.trim() : detail);
  const rawPath = pathOf(a);
  const path = rawPath === undefined ? undefined : shownPath(rawPath, cwd);

  if ((lower === 'edit' || lower === 'str_replace' || lower === 'str_replace_editor') && path) {
    const oldText = str(a.old_string) ?? str(a.oldText) ?? str(a.old_str) ?? '';
    const newText = str(a.new_string) ?? str(a.newText) ?? str(a.new_str) ?? '';
    return `${head(code(path))}\n\n${fence(swapDiff(oldText, newText), 'diff')}`;
  }
  if (lower === 'multiedit' && path && Array.isArray(a.edits)) {
    const diffs = (a.edits as Args[]).map((e) => swapDiff(str(e?.old_string) ?? '', str(e?.new_string) ?? ''));
    return `${head(code(path))}\n\n${fence(diffs.join('\n@@\n'), 'diff')}`;
  }
  if (lower === 'write' && path) {
    const content = str(a.content) ?? '';
    return `${head(code(path))}\n\n${fence(content, languageOf(rawPath!))}`;
  }
  if (lower === 'read' && path) {
    const from = typeof a.offset === 'number' ? a.offset : undefined;
    const limit = typeof a.limit === 'number' ? a.limit : undefined;
    const range = from !== undefined || limit !== undefined ? ` (lines ${from ?? 1}–${limit !== undefined ? (from ?? 1) + limit - 1 : 'end'})` : '';
    return head(`${code(path)}${range}`);
  }
  const command = str(a.command) ?? str(a.cmd) ?? (Array.isArray(a.command) ? (a.command as unknown[]).map(String).join(' ') : undefined);
  if ((lower === 'bash' || lower === 'shell' || lower === 'exec_command' || lower === 'local_shell') && command !== undefined) {
    const description = str(a.description);
    return `${head(description ? `*${description}*` : '')}${withName || description ? '\n\n' : ''}${fence(`$ ${command}`, 'sh')}`;
  }
  if (lower === 'apply_patch') {
    const patch = typeof args === 'string' ? args : (str(a.input) ?? str(a.patch));
    if (patch !== undefined) return `${head('')}${withName ? '\n\n' : ''}${fence(patch, 'diff')}`;
  }
  let json: string;
  try {
    json = JSON.stringify(args ?? {}, null, 2) ?? '';
  } catch {
    json = String(args);
  }
  return `${head('')}${withName ? '\n\n' : ''}${fence(json, 'json')}`;
}
