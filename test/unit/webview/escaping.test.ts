// Session text is untrusted: scripts, event handlers, javascript: links and remote images must come out as text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { escapeHtml, truncate } from '../../../webview-ui/src/common/escape';
import { isSafeLinkTarget, renderMarkdown } from '../../../webview-ui/src/common/markdown';
import { renderRow } from '../../../webview-ui/src/transcript/render-row';
import { renderPreview } from '../../../webview-ui/src/preview/render';
import type { TranscriptItem } from '../../../src/shared/view-models';
import { samplePreview } from './fakes';
import { inertnessProblems } from './inert-html';

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '[x](javascript:alert(1))',
  '[x](JaVaScRiPt:alert(1))',
  '[x](vbscript:msgbox(1))',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '<javascript:alert(1)>',
  '![pic](https://evil.example/track.png)',
  '![pic](data:image/png;base64,iVBORw0KGgo=)',
  '<a href="javascript:alert(1)">click</a>',
  '<iframe src="https://evil.example"></iframe>',
  '<svg onload=alert(1)>',
  '[x](java\tscript:alert(1))',
  '" onmouseover="alert(1)',
];

const row = (over: Partial<TranscriptItem>): TranscriptItem => ({ entryId: 'e1', kind: 'user', markdown: 'hi', ...over });

describe('escapeHtml', () => {
  it('escapes the five HTML-significant characters', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
  it('leaves no raw < > " \' in any string (property)', () => {
    fc.assert(fc.property(fc.string(), (s) => !/[<>"']/.test(escapeHtml(s))));
  });
  it('truncates without splitting a surrogate pair', () => {
    assert.equal(truncate('ab😀cd', 4), 'ab…');
    assert.equal(truncate('ab😀cd', 5), 'ab😀…');
    assert.equal(truncate('short', 10), 'short');
  });
});

describe('the inertness check itself', () => {
  it('flags raw hostile HTML (so the checks below can fail)', () => {
    assert.ok(inertnessProblems('<img src=x onerror=alert(1)>').length >= 2);
    assert.ok(inertnessProblems('<script>alert(1)</script>').length > 0);
    assert.ok(inertnessProblems('<a href="javascript:alert(1)">x</a>').length > 0);
    assert.ok(inertnessProblems('<p style="x">x</p>').length > 0);
    assert.deepEqual(inertnessProblems('<p>&lt;img src=x onerror=alert(1)&gt;</p>'), []);
  });
});

describe('renderMarkdown', () => {
  it('marks each line of a diff block as added, removed or context, escaped', () => {
    const html = renderMarkdown("```diff\n-export const a = '<b>';\n+export const a = 'c';\n same\n```");
    assert.match(html, /^<pre class="diff"><code class="language-diff">/);
    assert.ok(html.includes(`<span class="diff-del">-export const a = &#39;&lt;b&gt;&#39;;</span>`), html);
    assert.ok(html.includes(`<span class="diff-add">+export const a = &#39;c&#39;;</span>`), html);
    assert.ok(html.includes('<span class="diff-ctx"> same</span>'), html);
    assert.ok(!html.includes('<b>'));
  });

  for (const payload of HOSTILE) {
    it(`renders ${JSON.stringify(payload)} inert`, () => {
      const html = renderMarkdown(payload);
      assert.deepEqual(inertnessProblems(html), [], html);
    });
  }

  it('shows a script tag as visible text', () => {
    assert.match(renderMarkdown('<script>alert(1)</script>'), /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it('keeps a javascript: link as literal text, not a link', () => {
    const html = renderMarkdown('[x](javascript:alert(1))');
    assert.doesNotMatch(html, /<a /);
    assert.match(html, /\[x\]\(javascript:alert\(1\)\)/);
  });

  it('gives a link with an empty target no href (it would navigate the webview to itself)', () => {
    for (const source of ['[]()', '[x]()', '[x](<>)']) {
      const html = renderMarkdown(source);
      assert.doesNotMatch(html, /href/, html);
      assert.deepEqual(inertnessProblems(html), [], html);
    }
  });

  it('turns a remote image into a link with its alt text and never an <img>', () => {
    const html = renderMarkdown('![the logo](https://example.com/logo.png)');
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /<a class="md-image" href="https:\/\/example.com\/logo.png"/);
    assert.match(html, /image: the logo/);
  });

  it('keeps ordinary https links and adds rel', () => {
    const html = renderMarkdown('see [docs](https://example.com/a?b=1&c=2)');
    assert.match(html, /<a href="https:\/\/example.com\/a\?b=1&amp;c=2" title="[^"]+" rel="noreferrer noopener">docs<\/a>/);
  });

  it('still renders markdown (emphasis, code, fences)', () => {
    const html = renderMarkdown('**bold** `x<y`\n\n```ts\nconst a = 1 < 2;\n```');
    assert.match(html, /<strong>bold<\/strong>/);
    assert.match(html, /<code>x&lt;y<\/code>/);
    assert.match(html, /const a = 1 &lt; 2;/);
  });

  it('is inert for arbitrary input (property)', () => {
    const pieces = fc.constantFrom(...HOSTILE, '**', '[', '](', ')', '<', '>', '"', "'", 'javascript:', 'https://a.b/', '\n', ' ', '`', '![');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => inertnessProblems(renderMarkdown(parts.join(''))).length === 0),
      { numRuns: 300 },
    );
  });

  it('accepts only http(s) and mailto link targets', () => {
    assert.equal(isSafeLinkTarget('https://x.y'), true);
    assert.equal(isSafeLinkTarget('mailto:a@b.c'), true);
    for (const bad of [
      'javascript:alert(1)',
      ' javascript:x',
      'data:text/html,x',
      'vbscript:x',
      'file:///etc/passwd',
      'command:workbench.action.quit',
      '/relative',
      'https://a\nb',
    ]) {
      assert.equal(isSafeLinkTarget(bad), false, bad);
    }
  });
});

describe('transcript rows and the preview escape every field', () => {
  const evil = '<img src=x onerror=alert(1)>"\'';
  it('escapes entry ids, titles, labels, branch names and tool output', () => {
    for (const kind of ['user', 'toolResult', 'bash', 'assistant'] as const) {
      const html = renderRow(
        row({
          kind,
          entryId: evil,
          title: evil,
          label: evil,
          markdown: `${evil}\n<script>alert(1)</script>`,
          otherBranches: [{ name: evil, headEntryId: 'h' }],
        }),
        { index: 0, expanded: false, branchesExpanded: false },
      );
      assert.deepEqual(inertnessProblems(html), [], html);
      assert.doesNotMatch(html, /<img|<script/);
    }
  });

  it('escapes typed user text, notices and subagent conversations, and drops write actions in read-only sessions', () => {
    const html = renderRow(
      row({
        kind: 'user',
        preformatted: true,
        markdown: `${evil}\n    indented`,
        notice: evil,
        isError: true,
        subagents: [{ agentId: 'a', title: evil, messages: 2, markdown: `**Task**\n\n${evil}` }],
      }),
      { index: 0, expanded: false, branchesExpanded: false, readOnly: true },
    );
    assert.deepEqual(inertnessProblems(html), [], html);
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /<div class="plain-text">&lt;img[^<]*\n    indented<\/div>/);
    assert.doesNotMatch(html, /data-action="(fork|label)"/);
    assert.match(html, /data-action="rewind-to-here"/);
  });

  it('does not let an unknown kind into class names or attributes', () => {
    const html = renderRow(row({ kind: 'x" onclick="alert(1)' as never }), { index: 0, expanded: false, branchesExpanded: false });
    assert.match(html, /data-kind="other"/);
    assert.deepEqual(inertnessProblems(html), []);
  });

  it('escapes everything in the preview', () => {
    const model = samplePreview({ anchorPreview: evil });
    if (model.files.ok) {
      model.files.files[0]!.path = evil;
      model.files.skipped[0]!.reason = evil;
    }
    if (model.conversation.ok) model.conversation.newBranchName = evil;
    const html = renderPreview(model, { mode: null, overwriteUserModified: false, busy: false, applyError: evil });
    assert.deepEqual(inertnessProblems(html), [], html);
    assert.doesNotMatch(html, /<img/);
  });
});

describe('transcript row labels (what a screen reader says on focus)', () => {
  it('names the speaker and tool, then the text without markdown syntax, escaped', async () => {
    const { renderRow, rowLabel } = await import('../../../webview-ui/src/transcript/render-row');
    const item = { entryId: 'e1', kind: 'toolCall' as const, title: 'edit', markdown: '`src/a.ts`\n\n```diff\n-a "<b>"\n+b\n```' };
    assert.equal(rowLabel(item, 'Tool call'), 'Tool call, edit: src/a.ts -a "<b>" +b');
    assert.ok(
      renderRow(item, { index: 0, expanded: false, branchesExpanded: false }).includes('aria-label="Tool call, edit: src/a.ts -a &quot;&lt;b&gt;&quot; +b"'),
    );
    assert.equal(rowLabel({ entryId: 'e2', kind: 'user', markdown: 'x'.repeat(400) }, 'You').length, 'You: '.length + 300);
  });
});
