// Adds and removes our handlers in a hooks settings file of Claude Code's shape (Claude Code's settings, Codex's
// hooks.json: `{hooks: {Event: [{matcher?, hooks: [handler]}]}}`) by editing its text where our handler goes and
// nowhere else. The rest of the file keeps its bytes: its layout, key order, and numbers that a JSON round trip
// through doubles would change (`12345678901234567890` read and written back by JSON.parse/stringify is
// `12345678901234567000`). jsonc-parser gives each value's place in the text; what is inserted follows the file's
// indentation, and a removal takes out exactly what the matching insertion put in, so install then uninstall gives
// the file back byte for byte.
// the ES module build: the package's "main" is a UMD build whose require() calls a bundler cannot follow
import { findNodeAtLocation, getNodeValue, parseTree, type Node } from 'jsonc-parser/lib/esm/main.js';
import type { SettingsFail } from './settings-file';

/** The key and value that mark a handler as written by agent-rewind (Claude Code and Codex ignore keys they do not
 *  know: Claude Code drops them, Codex's serde skips them, and Codex's trust hash does not cover them). */
export const HANDLER_MARK = { key: 'installedBy', value: 'agent-rewind' } as const;

export interface HooksJsonEdit {
  /** The new text (the same string when nothing changed). */
  text: string;
  added: string[];
  updated: string[];
  alreadyPresent: string[];
  removed: string[];
}

interface Style {
  /** One level of indentation ('' for a file on one line, which stays on one line). */
  unit: string;
  eol: string;
}

interface Doc {
  bom: string;
  body: string;
  style: Style;
  /** The file was empty (or missing): a new object, written with two-space indentation. */
  fresh: boolean;
}

/** The text checked as strict JSON holding an object (as the agents read it: no comments, no trailing commas). */
function open(text: string, file: string, fail: SettingsFail): Doc {
  const bom = text.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const body = text.slice(bom.length);
  if (body.trim() === '') return { bom, body: '{}', style: { unit: '  ', eol: '\n' }, fresh: true };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    throw fail(`${file} is not valid JSON (${(err as Error).message}); fix or remove it, it was left as it is`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw fail(`${file} does not hold a JSON object; it was left as it is`);
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const indented = /^[{[][ \t]*\r?\n([ \t]+)\S/.exec(body) ?? /\n([ \t]+)\S/.exec(body);
  const unit = !body.includes('\n') ? '' : indented ? (indented[1]!.startsWith('\t') ? '\t' : indented[1]!) : '  ';
  return { bom, body, style: { unit, eol }, fresh: false };
}

function close(doc: Doc, original: string): string {
  const text = doc.bom + doc.body;
  if (text === original || !doc.fresh) return text;
  return `${text}\n`;
}

const tree = (doc: Doc): Node => parseTree(doc.body)!;
const end = (n: Node) => n.offset + n.length;
const lineStart = (text: string, offset: number) => text.lastIndexOf('\n', offset - 1) + 1;
const startsLine = (text: string, offset: number) => text.slice(lineStart(text, offset), offset).trim() === '';
const lineIndent = (text: string, offset: number) => /^[ \t]*/.exec(text.slice(lineStart(text, offset)))![0];

function format(value: unknown, indent: string, style: Style): string {
  if (!style.unit) return JSON.stringify(value);
  return JSON.stringify(value, null, style.unit)
    .split('\n')
    .join(style.eol + indent);
}

function item(key: string | undefined, value: unknown, indent: string, style: Style): string {
  const v = format(value, indent, style);
  return key === undefined ? v : `${JSON.stringify(key)}:${style.unit ? ' ' : ''}${v}`;
}

const splice = (doc: Doc, from: number, to: number, text: string) => {
  doc.body = doc.body.slice(0, from) + text + doc.body.slice(to);
};

/** Appends `value` (as property `key` of an object, or an element of an array) after the container's last child. */
function append(doc: Doc, container: Node, key: string | undefined, value: unknown): void {
  const { body, style } = doc;
  const children = container.children ?? [];
  const last = children[children.length - 1];
  if (last) {
    if (style.unit && startsLine(body, last.offset)) {
      const indent = lineIndent(body, last.offset);
      splice(doc, end(last), end(last), `,${style.eol}${indent}${item(key, value, indent, style)}`);
    } else splice(doc, end(last), end(last), `,${style.unit ? ' ' : ''}${item(key, value, '', { ...style, unit: '' })}`);
    return;
  }
  if (!style.unit) return splice(doc, container.offset + 1, end(container) - 1, item(key, value, '', style));
  const outer = lineIndent(body, container.offset);
  const indent = outer + style.unit;
  splice(doc, container.offset + 1, end(container) - 1, `${style.eol}${indent}${item(key, value, indent, style)}${style.eol}${outer}`);
}

/** Removes a container's child (a property or an element) with the separator before it, as append wrote it. */
function remove(doc: Doc, container: Node, index: number): void {
  const children = container.children!;
  if (children.length === 1) return splice(doc, container.offset + 1, end(container) - 1, '');
  if (index > 0) return splice(doc, end(children[index - 1]!), end(children[index]!), '');
  splice(doc, children[0]!.offset, children[1]!.offset, '');
}

function replace(doc: Doc, node: Node, value: unknown): void {
  const inline = !doc.style.unit || !startsLine(doc.body, node.offset);
  splice(doc, node.offset, end(node), inline ? JSON.stringify(value) : format(value, lineIndent(doc.body, node.offset), doc.style));
}

/** The value node of a property of an object node. */
function property(obj: Node, key: string): Node | undefined {
  return obj.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1];
}

function hooksObject(doc: Doc, file: string, fail: SettingsFail): Node | undefined {
  const hooks = property(tree(doc), 'hooks');
  if (hooks && hooks.type !== 'object') throw fail(`${file}: "hooks" is not an object; it was left as it is`);
  return hooks;
}

function eventList(hooks: Node, event: string, file: string, fail: SettingsFail): Node | undefined {
  const list = property(hooks, event);
  if (list && list.type !== 'array') throw fail(`${file}: "hooks.${event}" is not a list; it was left as it is`);
  return list;
}

/** Where our handlers are in an event's list: [group index, handler index], last first (so removals keep places). */
function ours(list: Node, isOurs: (h: unknown) => boolean): [number, number][] {
  const out: [number, number][] = [];
  (list.children ?? []).forEach((group, g) => {
    if (group.type !== 'object') return;
    const handlers = property(group, 'hooks');
    if (handlers?.type !== 'array') return;
    handlers.children!.forEach((h, i) => {
      if (isOurs(getNodeValue(h))) out.push([g, i]);
    });
  });
  return out.reverse();
}

/** Removes the handler at [g, i] of an event, then its group when no handler is left in it, then the event when it
 *  has no group left. */
function removeHandler(doc: Doc, event: string, [g, i]: [number, number]): void {
  const groupHandlers = findNodeAtLocation(tree(doc), ['hooks', event, g, 'hooks'])!;
  if (groupHandlers.children!.length > 1) return remove(doc, groupHandlers, i);
  const list = findNodeAtLocation(tree(doc), ['hooks', event])!;
  if (list.children!.length > 1) return remove(doc, list, g);
  const hooks = findNodeAtLocation(tree(doc), ['hooks'])!;
  remove(
    doc,
    hooks,
    hooks.children!.findIndex((p) => p.children?.[0]?.value === event),
  );
}

/** Key order does not make two handlers different. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** Our handler `wanted` in each event, once: added, or ours rewritten in place (duplicates dropped). */
export function installHandlers(
  text: string,
  file: string,
  events: readonly string[],
  wanted: Record<string, unknown>,
  isOurs: (h: unknown) => boolean,
  fail: SettingsFail,
): HooksJsonEdit {
  const doc = open(text, file, fail);
  const edit: HooksJsonEdit = { text, added: [], updated: [], alreadyPresent: [], removed: [] };
  for (const event of events) {
    const hooks = hooksObject(doc, file, fail);
    if (!hooks) {
      append(doc, tree(doc), 'hooks', { [event]: [{ hooks: [wanted] }] });
      edit.added.push(event);
      continue;
    }
    const list = eventList(hooks, event, file, fail);
    if (!list) {
      append(doc, hooks, event, [{ hooks: [wanted] }]);
      edit.added.push(event);
      continue;
    }
    const found = ours(list, isOurs);
    if (found.length === 0) {
      append(doc, list, undefined, { hooks: [wanted] });
      edit.added.push(event);
      continue;
    }
    const [g, i] = found[found.length - 1]!; // the first one in the file is kept
    const node = findNodeAtLocation(list, [g, 'hooks', i])!;
    if (found.length === 1 && canonical(getNodeValue(node)) === canonical(wanted)) {
      edit.alreadyPresent.push(event);
      continue;
    }
    for (const at of found.slice(0, -1)) removeHandler(doc, event, at);
    const kept = findNodeAtLocation(tree(doc), ['hooks', event, g, 'hooks', i])!;
    if (canonical(getNodeValue(kept)) !== canonical(wanted)) replace(doc, kept, wanted);
    edit.updated.push(event);
  }
  return { ...edit, text: close(doc, text) };
}

/** Removes every handler of ours from every event (and a `hooks` object left empty). */
export function removeHandlers(text: string, file: string, isOurs: (h: unknown) => boolean, fail: SettingsFail): HooksJsonEdit {
  const edit: HooksJsonEdit = { text, added: [], updated: [], alreadyPresent: [], removed: [] };
  if (text.trim() === '' || text === '\ufeff') return edit;
  const doc = open(text, file, fail);
  const hooks = hooksObject(doc, file, fail);
  if (!hooks) return edit;
  for (const prop of hooks.children ?? []) {
    const event = prop.children![0]!.value as string;
    const list = findNodeAtLocation(tree(doc), ['hooks', event]);
    if (list?.type !== 'array') continue;
    const found = ours(list, isOurs);
    if (!found.length) continue;
    for (const at of found) removeHandler(doc, event, at);
    edit.removed.push(event);
  }
  const left = findNodeAtLocation(tree(doc), ['hooks'])!;
  if (edit.removed.length && !left.children?.length) {
    const root = tree(doc);
    remove(
      doc,
      root,
      root.children!.findIndex((p) => p.children?.[0]?.value === 'hooks'),
    );
  }
  return { ...edit, text: close(doc, text) };
}

/** The events that hold a handler of ours (nothing written). */
export function eventsWithHandler(text: string, file: string, isOurs: (h: unknown) => boolean, fail: SettingsFail): string[] {
  if (text.trim() === '' || text === '\ufeff') return [];
  const doc = open(text, file, fail);
  const hooks = property(tree(doc), 'hooks');
  if (hooks?.type !== 'object') return [];
  return (hooks.children ?? [])
    .filter((p) => p.children?.[1]?.type === 'array' && ours(p.children[1], isOurs).length > 0)
    .map((p) => p.children![0]!.value as string);
}
