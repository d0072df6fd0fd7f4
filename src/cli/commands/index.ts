import type { Command } from '../command';
import { appendCommand } from './append';
import { branchesCommand } from './branches';
import { checkpointCommand } from './checkpoint';
import { contextCommand } from './context';
import { gcCommand } from './gc';
import { newCommand } from './new';
import { restoreCommand } from './restore';
import { rewindCommand } from './rewind';
import { rewindFilesCommand } from './rewind-files';
import { searchCommand } from './search';
import { sessionsCommand } from './sessions';
import { snapshotCommand } from './snapshot';
import { stateCommand } from './state';
import { switchCommand } from './switch';
import { treeCommand } from './tree';
import { undoRewindCommand } from './undo-rewind';

// Each command module adds itself here; keep the list alphabetical.
export const commands: Command[] = [
  appendCommand,
  branchesCommand,
  checkpointCommand,
  contextCommand,
  gcCommand,
  newCommand,
  restoreCommand,
  rewindCommand,
  rewindFilesCommand,
  searchCommand,
  sessionsCommand,
  snapshotCommand,
  stateCommand,
  switchCommand,
  treeCommand,
  undoRewindCommand,
];
