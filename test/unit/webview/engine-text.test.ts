// The engine marks commands, paths and ids in its messages as `code`: webviews show them as code, and nothing raw.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeWithCode } from '../../../webview-ui/src/common/escape';
import { renderPreview } from '../../../webview-ui/src/preview/render';
import { renderCompare } from '../../../webview-ui/src/compare/render';
import { sampleCompare, samplePreview } from './fakes';
import { inertnessProblems } from './inert-html';

describe('engine messages in webviews', () => {
  it('shows `code` as code, escaped, and leaves a lone backtick alone', () => {
    assert.equal(escapeWithCode('start one with `claude` <now>'), 'start one with <code>claude</code> &lt;now&gt;');
    assert.equal(escapeWithCode('a `<img src=x onerror=alert(1)>` b'), 'a <code>&lt;img src=x onerror=alert(1)&gt;</code> b');
    assert.equal(escapeWithCode('it`s'), 'it`s');
  });

  it('renders a preview problem, a files note and a skipped reason without raw backticks', () => {
    const m = samplePreview({
      conversation: { ok: false, error: 'there is no conversation before it (start a new one with `claude`).' },
    });
    if (m.files.ok) {
      m.files.note = 'Only `Write` and `Edit` changes are covered.';
      m.files.skipped = [{ path: 'big.bin', reason: 'larger than `maxFileSizeMB`' }];
    }
    const html = renderPreview(m, { mode: null, overwriteUserModified: false, busy: false });
    assert.match(html, /start a new one with <code>claude<\/code>/);
    assert.match(html, /Only <code>Write<\/code> and <code>Edit<\/code>/);
    assert.match(html, /larger than <code>maxFileSizeMB<\/code>/);
    assert.doesNotMatch(html.replace(/<code>[^<]*<\/code>/g, ''), /`/);
    assert.deepEqual(inertnessProblems(html), []);
  });

  it('renders a compare error with its code marks as code', () => {
    const html = renderCompare(sampleCompare({ files: { ok: false, error: 'no snapshot: run `agent-rewind hooks install claude`' } }), {});
    assert.match(html, /run <code>agent-rewind hooks install claude<\/code>/);
  });
});
