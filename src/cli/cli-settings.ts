// The CLI's settings come from core/engine/settings-file.ts (also used by Claude Code's hooks).
export { cliCheckpointerOptions, loadCliSettings, parseJsonc, type CliSettings } from '../core/engine';
