// One settings file that holds an agent's hooks in the shape hooks-json.ts edits (Claude Code's settings.json,
// Gemini CLI's settings.json): where it may be written, and adding or removing our handler there as one safe edit
// (settings-file.ts) whose change record says what happened. The agents' adapters differ in where the file is and what
// their handler looks like; this is what they do alike, so that a fix to the refusals or the record reaches all.
import { statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { eventsWithHandler, type HooksJsonEdit } from './hooks-json';
import { editSettingsFiles, readSettingsFile, refuseLinkedFolder, type SettingsFail, type SettingsFileRef } from './settings-file';

export type HooksFileScope = 'workspace' | 'user';

export interface HooksFileChange {
  /** The settings file (as named). */
  file: string;
  /** The file written when `file` is a symlink (user scope only; a project's symlink is refused). */
  target?: string;
  scope: HooksFileScope;
  /** Whether the file was written (false: it already said what we wanted, or did not exist and had nothing of ours). */
  written: boolean;
  /** The file did not exist and was created. */
  created: boolean;
  /** Events our handler was added to. */
  added: string[];
  /** Events that already had our handler exactly as wanted. */
  alreadyPresent: string[];
  /** Events whose handler of ours was rewritten (another launcher path, timeout, or duplicates dropped). */
  updated: string[];
  /** Events our handler was removed from. */
  removed: string[];
}

/** Refuses a folder that is missing or is not a folder (a project's settings are never written into nowhere). */
export function requireFolder(dir: string, what: string, fail: SettingsFail): void {
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw fail(`${what} ${dir} does not exist or is not a folder`);
}

/** The settings file as a reference: in a workspace it is never a symlink, nor under a linked folder (its own, e.g.
 *  `.claude`); the user's may be one (dotfiles), and is then written through, its real path named in the change. */
export function hooksSettingsRef(file: string, loc: { scope: HooksFileScope; workspace?: string }, fail: SettingsFail): SettingsFileRef {
  if (!isAbsolute(file)) throw fail(`settings path ${file} is not absolute`);
  if (loc.scope === 'workspace') {
    requireFolder(resolve(loc.workspace!), 'workspace folder', fail);
    refuseLinkedFolder(dirname(file), fail);
  }
  return { file, followLink: loc.scope === 'user' };
}

/** Applies `apply` (hooks-json.ts's installHandlers or removeHandlers) to the file, safely, and says what it did. */
export function editHooksFile(
  ref: SettingsFileRef,
  scope: HooksFileScope,
  apply: (text: string, file: string) => HooksJsonEdit,
  fail: SettingsFail,
): HooksFileChange {
  const { result, reads, written } = editSettingsFiles(
    [ref],
    ([read]) => {
      const e = apply(read!.text, ref.file);
      return { texts: [e.text], result: e };
    },
    fail,
  );
  const read = reads[0]!;
  return {
    file: ref.file,
    ...(read.target !== ref.file ? { target: read.target } : {}),
    scope,
    written: written[0]!,
    created: written[0]! && !read.exists,
    added: result.added,
    alreadyPresent: result.alreadyPresent,
    updated: result.updated,
    removed: result.removed,
  };
}

/** The events of the file that have a handler of ours, without changing it. */
export function hooksFileEvents(ref: SettingsFileRef, isOurs: (h: unknown) => boolean, fail: SettingsFail): string[] {
  return eventsWithHandler(readSettingsFile(ref, fail).text, ref.file, isOurs, fail);
}
