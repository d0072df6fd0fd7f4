// The CLI's settings come from core/settings/settings-file.ts (also used by Claude Code's hooks).
// straight from settings-file.ts, not the engine's index: a snapshot or hook must not evaluate the whole engine
export { cliCheckpointerOptions, loadCliSettings, parseJsonc, type CliSettings } from '../core/settings/settings-file';
