// What a transcript row's badge and buttons say: the snapshot badge is not a change count, and Rewind to here and
// Fork say how they differ where the choice is made.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderRow } from '../../../webview-ui/src/transcript/render-row';
import type { TranscriptItem } from '../../../src/shared/view-models';

const user: TranscriptItem = { entryId: 'u1', kind: 'user', markdown: 'Add tests', fileCheckpoint: { files: 5 } };
const options = { index: 0, expanded: false, branchesExpanded: false };
const attr = (html: string, action: string, name: string) => new RegExp(`data-action="${action}"[^>]*${name}="([^"]*)"`).exec(html)?.[1] ?? '';

describe('transcript row wording', () => {
  it('labels the snapshot as a snapshot: "5 files" beside a prompt read as "5 files changed"', () => {
    const html = renderRow(user, options);
    const badge = /<span class="checkpoint-badge" title="([^"]*)">.*?<\/span>([^<]*)<\/span>/.exec(html);
    assert.ok(badge, html);
    assert.equal(badge[2], 'snapshot');
    assert.match(badge[1]!, /snapshot of the workspace \(5 files\) was taken when this message was sent/);
  });

  it('says how Rewind to here and Fork differ: preview with files, or at once with the conversation only', () => {
    const html = renderRow(user, options);
    assert.match(attr(html, 'rewind-to-here', 'title'), /preview.*files as they were.*Nothing changes until you confirm/);
    assert.match(attr(html, 'fork', 'aria-label'), /at once, conversation only \(files stay as they are\)/);
    // Another agent's session: no fork, and the rewind says it continues in a new session.
    const readOnly = renderRow(user, { ...options, readOnly: true });
    assert.equal(attr(readOnly, 'fork', 'aria-label'), '');
    assert.match(attr(readOnly, 'rewind-to-here', 'title'), /new session from just before this message/);
  });
});
