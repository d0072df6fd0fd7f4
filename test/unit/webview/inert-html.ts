// A strict look at HTML the webviews produce: every tag must be one we emit on purpose, no attribute may be an
// event handler or a style, and every link must be http(s)/mailto. Used by the escaping tests.
const ALLOWED_TAGS = new Set([
  'a',
  'article',
  'blockquote',
  'br',
  'button',
  'code',
  'del',
  'details',
  'div',
  'em',
  'fieldset',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'input',
  'label',
  'legend',
  'li',
  'ol',
  'p',
  'pre',
  's',
  'section',
  'span',
  'strong',
  'summary',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'time',
  'tr',
  'ul',
]);

export interface TagProblem {
  tag: string;
  problem: string;
}

export function inertnessProblems(html: string): TagProblem[] {
  const problems: TagProblem[] = [];
  for (const match of html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>/g)) {
    const [tag, name, attrs] = [match[0], match[1]!.toLowerCase(), match[2] ?? ''];
    if (!ALLOWED_TAGS.has(name)) problems.push({ tag, problem: `unexpected <${name}>` });
    for (const attr of attrs.matchAll(/([^\s"'=<>/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?/g)) {
      const attrName = attr[1]!.toLowerCase();
      const value = (attr[2] ?? '').replace(/^["']|["']$/g, '');
      if (attrName.startsWith('on')) problems.push({ tag, problem: `event handler ${attrName}` });
      if (attrName === 'style' || attrName === 'srcdoc' || attrName === 'src') problems.push({ tag, problem: `attribute ${attrName}` });
      if (attrName === 'href' && !/^(https?:\/\/|mailto:)/i.test(value.replace(/&amp;/g, '&'))) problems.push({ tag, problem: `link to ${value}` });
    }
  }
  return problems;
}
