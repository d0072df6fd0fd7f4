// Safe markdown for session text: what an agent or a tool wrote is untrusted. Raw HTML is shown as text
// (html: false), links survive only with http(s)/mailto targets (so javascript:, data:, vbscript:, file: and
// friends stay literal text), and images are never loaded: an image becomes a link (or plain text) with its alt.
import MarkdownIt from 'markdown-it';
import { escapeHtml } from './escape';

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

/** Whether a (normalized) link target may become a clickable link. Everything else is left as text. */
export function isSafeLinkTarget(url: string): boolean {
  // Control characters and whitespace inside a scheme are a classic way to smuggle "java\nscript:".
  const trimmed = url.trim();
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return false;
  return SAFE_LINK.test(trimmed);
}

function createRenderer(): MarkdownIt {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  md.validateLink = isSafeLinkTarget;

  md.renderer.rules.image = (tokens, idx) => {
    const token = tokens[idx]!;
    const src = token.attrGet('src') ?? '';
    const alt = token.children ? md.renderer.renderInlineAsText(token.children, md.options, {}) : token.content;
    const text = `image: ${alt || 'untitled'}`;
    const label = `<span class="codicon codicon-file-media" aria-hidden="true"></span>${escapeHtml(text)}`;
    // A remote image is never fetched; the user can open it in their browser if they want.
    return isSafeLinkTarget(src) && !/^mailto:/i.test(src)
      ? `<a class="md-image" href="${escapeHtml(src)}" title="${escapeHtml(src)}">${label}</a>`
      : `<span class="md-image">${label}</span>`;
  };

  const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const href = token.attrGet('href') ?? '';
    // markdown-it keeps a link whose target failed validation (or was empty, `[x]()`) with href="", which would
    // navigate the webview to itself: such a link keeps its text but loses its target.
    if (!isSafeLinkTarget(href)) {
      token.attrs = null;
      return defaultLinkOpen(tokens, idx, options, env, self);
    }
    token.attrSet('title', href);
    token.attrSet('rel', 'noreferrer noopener');
    return defaultLinkOpen(tokens, idx, options, env, self);
  };
  // A ```diff block (an edit tool call): each line marked as added, removed or context, so colours say which is which
  // (one block per line; the text, +/- included, stays as it was).
  const defaultFence = md.renderer.rules.fence!;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    if (token.info.trim().split(/\s+/)[0] !== 'diff') return defaultFence(tokens, idx, options, env, self);
    const lines = token.content.replace(/\n$/, '').split('\n');
    const body = lines
      .map((line) => {
        const kind = line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : line.startsWith('@@') ? 'diff-hunk' : 'diff-ctx';
        return `<span class="${kind}">${escapeHtml(line)}</span>`;
      })
      .join('');
    return `<pre class="diff"><code class="language-diff">${body}</code></pre>\n`;
  };
  return md;
}

let renderer: MarkdownIt | undefined;

/** Markdown source → HTML that is safe to put into the webview's DOM. */
export function renderMarkdown(source: string): string {
  renderer ??= createRenderer();
  return renderer.render(source);
}
