import type { Command } from '../command';

// Each command module adds itself here; keep the list alphabetical.
export const commands: Command[] = [];
