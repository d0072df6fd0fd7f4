// The project's sources as TypeScript reads them, for the checks over the tree (core-layers, agent-names): every
// module a file imports in any form, and a file's code with its comments left out.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** Every `.ts` file under `dir`, absolute, sorted. */
export function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? tsFilesUnder(p) : p.endsWith('.ts') ? [p] : [];
    })
    .sort();
}

const parse = (file: string, text: string) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

/** Every module specifier in `text`, whatever the form: `import`/`export … from` (type-only too), `import x =
 *  require()`, `import()` and `require()` calls, and `import('…')` types. */
export function importSpecifiers(file: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteralLike(e)) found.push(e.text);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const arg = node.arguments[0];
      if ((isImport || isRequire) && arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(file, text));
  return found;
}

/** The folder of `file` directly under `root` ("engine" for root/engine/x/y.ts), or the file's own name ("home.ts")
 *  for a module that sits in `root` itself: a top-level module is a node of the graph on its own. */
export function topFolderOf(root: string, file: string): string {
  return relative(root, file).split(sep)[0]!;
}

/** The file a relative import names, as TypeScript resolves it: `x.ts`, else the folder `x`'s index. */
export function importedFile(fromFile: string, spec: string): string {
  const target = resolve(dirname(fromFile), spec);
  if (target.endsWith('.ts') || existsSync(`${target}.ts`)) return target.endsWith('.ts') ? target : `${target}.ts`;
  return join(target, 'index.ts');
}

export interface FolderEdge {
  from: string;
  to: string;
  /** `file: specifier` of each import that makes the edge, relative to root. */
  via: string[];
}

/** The import graph between the folders directly under `root`: an edge for every relative import of a file in one
 *  folder that resolves to another folder under `root`. */
export function folderImportGraph(root: string): FolderEdge[] {
  const edges = new Map<string, FolderEdge>();
  for (const file of tsFilesUnder(root)) {
    const from = topFolderOf(root, file);
    for (const spec of importSpecifiers(file, readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = importedFile(file, spec);
      if (!target.startsWith(root + sep)) continue;
      const to = topFolderOf(root, target);
      if (to === from) continue;
      const key = `${from}\0${to}`;
      const edge = edges.get(key) ?? { from, to, via: [] };
      edge.via.push(`${relative(root, file)}: ${spec}`);
      edges.set(key, edge);
    }
  }
  return [...edges.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** The import graph between the files under `roots` (each a folder), named relative to `base`: an edge for every
 *  relative import that resolves to another file under one of the roots. */
export function fileImportGraph(base: string, roots: readonly string[]): FolderEdge[] {
  const inside = (file: string) => roots.some((r) => file.startsWith(r + sep));
  const edges = new Map<string, FolderEdge>();
  for (const file of roots.flatMap(tsFilesUnder)) {
    const from = relative(base, file);
    for (const spec of importSpecifiers(file, readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = importedFile(file, spec);
      if (!inside(target) || !existsSync(target)) continue;
      const to = relative(base, target);
      if (to === from) continue;
      const key = `${from}\0${to}`;
      const edge = edges.get(key) ?? { from, to, via: [] };
      edge.via.push(`${from}: ${spec}`);
      edges.set(key, edge);
    }
  }
  return [...edges.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** Each cycle of the graph, once: the folders of every strongly connected component larger than one (Tarjan). */
export function folderCycles(edges: readonly FolderEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strongConnect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) strongConnect(v);
  return components;
}

/** The text of `file` as code: comments replaced by spaces (strings, template texts and names are kept). */
export function codeWithoutComments(file: string, text: string): string {
  // the comments the parser attaches to nodes (a scanner alone would mistake a `//` inside a template or regex)
  const sf = parse(file, text);
  const commentRanges: [number, number][] = [];
  const seen = new Set<number>();
  const collect = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      commentRanges.push([r.pos, r.end]);
    }
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  collect(ts.getLeadingCommentRanges(text, sf.endOfFileToken.getFullStart()));
  commentRanges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [pos, end] of commentRanges) {
    if (pos < at) continue;
    out += text.slice(at, pos) + text.slice(pos, end).replace(/[^\n]/g, ' ');
    at = end;
  }
  return out + text.slice(at);
}

/** The words of a text as the names in it read: split at anything but letters and digits and at camelCase humps,
 *  lower-cased ("installClaudeHooks" → install, claude, hooks; "oh-my-pi" → oh, my, pi). */
export function wordsOf(text: string): string[] {
  return text
    .split(/[^A-Za-z0-9]+/)
    .flatMap((w) => w.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/))
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** Whether the word sequence `name` occurs in `words`. */
export function hasWords(words: readonly string[], name: readonly string[]): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i + name.length <= words.length; i++) if (name.every((w, j) => words[i + j] === w)) return true;
  return false;
}
