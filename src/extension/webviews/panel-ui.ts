// The few editor services the panel controllers use (clipboard, notifications, progress, commands), behind an
// interface so the controllers run in Node tests with a fake, and in VS Code with vscodePanelUi().
export interface PanelUi {
  copyToClipboard(text: string): Promise<void>;
  showError(message: string): void;
  /** An information message with buttons; resolves with the button clicked (undefined when dismissed). */
  showInfo(message: string, ...actions: string[]): Promise<string | undefined>;
  /** Runs `task` under a progress notification titled `title`. */
  withProgress<T>(title: string, task: () => Promise<T>): Promise<T>;
  executeCommand(command: string, ...args: unknown[]): Promise<unknown>;
}

/** Words for an error of unknown shape, for a person. */
export function messageOf(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  if (typeof error === 'string' && error) return error;
  return 'Something went wrong (no details were given).';
}
