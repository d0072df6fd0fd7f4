import type { Command } from '../command';
import { branchesCommand } from './branches';
import { checkpointCommand } from './checkpoint';
import { gcCommand } from './gc';
import { restoreCommand } from './restore';
import { rewindCommand } from './rewind';
import { rewindFilesCommand } from './rewind-files';
import { snapshotCommand } from './snapshot';
import { stateCommand } from './state';
import { switchCommand } from './switch';
import { undoRewindCommand } from './undo-rewind';

// Each command module adds itself here; keep the list alphabetical.
export const commands: Command[] = [
  branchesCommand,
  checkpointCommand,
  gcCommand,
  restoreCommand,
  rewindCommand,
  rewindFilesCommand,
  snapshotCommand,
  stateCommand,
  switchCommand,
  undoRewindCommand,
];
