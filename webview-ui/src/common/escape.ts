// Escaping for the HTML strings the webviews build. Every piece of session text goes through here or through
// the markdown renderer (which escapes too); nothing from a session is ever put into HTML raw.

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text content and attribute values alike (quotes are escaped, so it is safe inside "…" and '…'). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** Shortens text to at most `max` UTF-16 units (with the ellipsis) without cutting a surrogate pair in half. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** A message from the engine as HTML: escaped, with its `code` marks (commands, paths, ids) shown as code instead of
 *  as raw backticks. A lone backtick stays as it is. */
export function escapeWithCode(text: string): string {
  return escapeHtml(text).replace(/`([^`\n]+)`/g, '<code>$1</code>');
}
