// Where the checkpoint service of a home listens, and the files beside it. Everything is under <home>/service, a
// folder only its owner may enter (0700): the sockets (0600), the per-user secret (0600) and service.json (who runs).
import { createHash } from 'node:crypto';
import { join } from 'node:path';

export function serviceDir(home: string): string {
  return join(home, 'service');
}

/** A Unix socket under the home; on Windows a named pipe whose name is derived from the home. */
export function socketPath(home: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return `\\\\.\\pipe\\agent-rewind-${createHash('sha256').update(home.toLowerCase()).digest('hex').slice(0, 24)}`;
  return join(serviceDir(home), 'sock');
}

/** The hook endpoint's socket (HTTP, for the launcher's sh + perl / curl fast path): beside `sock`, POSIX only. */
export function hookSocketPath(home: string): string {
  return join(serviceDir(home), 'hook.sock');
}

export function secretPath(home: string): string {
  return join(serviceDir(home), 'secret');
}

/** Held (file-lock.ts) by the running service for its whole life: one service per home, decided atomically. */
export function serviceLockPath(home: string): string {
  return join(serviceDir(home), 'service.lock');
}

/** { pid, workspaces, startedAt }: what a second `serve` prints about the running one. */
export function infoPath(home: string): string {
  return join(serviceDir(home), 'service.json');
}

/** Unix socket paths are limited (108 bytes on Linux, 104 on macOS, terminator included). */
export const MAX_SOCKET_PATH = 103;
