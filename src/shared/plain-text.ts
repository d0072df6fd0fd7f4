// Text for places that show it as it is (VS Code notifications, quick picks): the engine's messages mark commands,
// paths and ids as `code`, and search snippets are raw markdown, so the backticks would show as they are.

/** The text without backtick runs (a snippet may cut a code span in half, so lone ones go too). */
export function withoutCodeMarks(text: string): string {
  return text.replace(/`+/g, '');
}
