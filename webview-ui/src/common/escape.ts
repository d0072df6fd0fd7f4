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

/** Shortens text for one-line previews without cutting a surrogate pair in half. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = Array.from(text.slice(0, max + 1)).slice(0, -1).join('');
  return `${cut.slice(0, max - 1)}…`;
}
