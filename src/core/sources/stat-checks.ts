// The two questions the agents' hooks and folder finders ask of a path they were handed: is it a folder, how big is
// it as a file. Symlinks are followed (a project folder may be one); any error is "no".
import { statSync } from 'node:fs';

/** Whether the path is a folder now (following symlinks); false when it is missing or cannot be read. */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The size of a regular file in bytes (following symlinks); undefined when it is missing or not a regular file. */
export function regularFileSize(path: string): number | undefined {
  try {
    const s = statSync(path);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}
