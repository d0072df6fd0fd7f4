// The Rewind preview's view logic and rendering: modes, Confirm, the e2e hooks, and errors in words.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderPreview } from '../../../webview-ui/src/preview/render';
import {
  confirmState,
  effectiveMode,
  fileFate,
  fileTotals,
  keptUserFiles,
  modeAvailability,
  problemsOf,
  selectedOnly,
  selectionOf,
  tickedHunks,
  type PreviewUiState,
} from '../../../webview-ui/src/preview/view-state';
import { samplePreview } from './fakes';
import type { FileHunks } from '../../../src/shared/view-models';

const ui = (over: Partial<PreviewUiState> = {}): PreviewUiState => ({ mode: null, overwriteUserModified: false, busy: false, ...over });
const noFiles = samplePreview({ files: { ok: false, error: 'No file checkpoint was taken for this message.' } });
const noConversation = samplePreview({ conversation: { ok: false, error: 'This message belongs to another session.' } });

/** The text inside the first element that carries `attr`. */
function textOf(html: string, attr: string): string | undefined {
  const m = new RegExp(`<(\\w+)[^>]*${attr.replace(/[[\]"]/g, '\\$&')}[^>]*>([^<]*)</\\1>`).exec(html);
  return m?.[2];
}

describe('modes', () => {
  it('offers every mode when all parts work, and defaults to conversation and files', () => {
    const m = samplePreview();
    assert.deepEqual(
      Object.values(modeAvailability(m)).map((a) => a.enabled),
      [true, true, true],
    );
    assert.equal(effectiveMode(m, null), 'all');
    assert.equal(effectiveMode(m, 'files'), 'files');
  });
  it('falls back to conversation only when the files cannot be rewound', () => {
    assert.equal(effectiveMode(noFiles, 'all'), 'conversation');
    assert.equal(modeAvailability(noFiles).files.enabled, false);
    assert.match(modeAvailability(noFiles).all.reason ?? '', /files cannot be rewound/);
  });
  it('falls back to files only when the conversation cannot be rewound', () => {
    assert.equal(effectiveMode(noConversation, 'conversation'), 'files');
  });
  it('has nothing to confirm when neither part works', () => {
    const m = samplePreview({ conversation: { ok: false, error: 'a' }, files: { ok: false, error: 'b' } });
    assert.equal(effectiveMode(m, 'all'), null);
    assert.deepEqual(confirmState(m, ui()), { enabled: false, label: 'Rewind' });
    assert.match(renderPreview(m, ui()), /data-action="confirm" disabled/);
  });
});

describe('Confirm', () => {
  it('counts the files it will really write: hand-changed files only when the box is ticked', () => {
    const m = samplePreview();
    assert.deepEqual(keptUserFiles(m, ui()), ['README.md']);
    assert.equal(confirmState(m, ui()).label, 'Rewind conversation and 2 files');
    assert.equal(confirmState(m, ui({ overwriteUserModified: true })).label, 'Rewind conversation and 3 files');
    assert.equal(confirmState(m, ui({ mode: 'files' })).label, 'Rewind 2 files');
    assert.equal(confirmState(m, ui({ mode: 'conversation' })).label, 'Rewind conversation');
  });
  it('never reads "Rewind 0 files": with every file already as it was, files only has nothing to do and the whole rewind says so', () => {
    const clean = samplePreview({ files: { ok: true, filesChanged: [], insertions: 0, deletions: 0, files: [], skipped: [] } });
    assert.deepEqual(confirmState(clean, ui({ mode: 'files' })), { enabled: false, label: 'No file to rewind' });
    assert.deepEqual(confirmState(clean, ui()), { enabled: true, label: 'Rewind conversation (files already match)' });
    assert.doesNotMatch(renderPreview(clean, ui()), /\b0 files\b/);
    // A file changed by hand and kept is no file to write, until the box is ticked.
    const onlyHandEdits = samplePreview();
    onlyHandEdits.files = { ...(onlyHandEdits.files as Extract<typeof onlyHandEdits.files, { ok: true }>), filesChanged: [], insertions: 0, deletions: 0 };
    assert.equal(confirmState(onlyHandEdits, ui({ mode: 'files' })).enabled, false);
    assert.deepEqual(confirmState(onlyHandEdits, ui({ mode: 'files', overwriteUserModified: true })), { enabled: true, label: 'Rewind 1 file' });
  });
  it('is disabled while the rewind runs', () => {
    assert.deepEqual(confirmState(samplePreview(), ui({ busy: true })), { enabled: false, label: 'Rewinding…' });
  });
});

describe("a fork (another agent's session)", () => {
  it('starts its sentence with a capital: "…is not changed. A new Claude Code session is written beside it"', () => {
    const m = samplePreview({
      conversation: {
        ok: true,
        currentBranch: 'main',
        newBranchName: 'a new Claude Code session',
        messagesLeftOnOldBranch: [],
        fork: { agent: 'Claude Code', resumeHint: 'claude --resume <id>' },
      },
    });
    const html = renderPreview(m, ui());
    assert.match(html, /is not changed\. <strong[^>]*>A new Claude Code session<\/strong> is written beside it/);
  });
});

describe("VS Code chat (the conversation is VS Code's to rewind)", () => {
  const m = samplePreview({
    conversation: { ok: false, error: "agent-rewind puts the workspace's files back … use its own Restore Checkpoint" },
    state: { ok: false, error: "agent-rewind puts the workspace's files back … use its own Restore Checkpoint" },
    editorChat: { agent: 'VS Code chat', sessionId: 's1', requestId: 'request_1' },
  });
  it("says what agent-rewind does and what VS Code does, and offers VS Code's commands; not as a problem", () => {
    const html = renderPreview(m, ui());
    assert.match(html, /<strong>agent-rewind<\/strong> rewinds the files \(Confirm below\), terminal changes included/);
    assert.match(html, /<strong>VS Code<\/strong> rewinds the conversation, with its own Restore Checkpoint/);
    assert.match(html, /data-action="editor-chat-restore"[^>]*>Restore VS Code's checkpoint</);
    assert.match(html, /data-action="editor-chat-open"[^>]*>Open in VS Code chat</);
    assert.match(html, /puts back the files its edit tools changed, not what the terminal changed/);
    assert.deepEqual(problemsOf(m, ui()), []);
    assert.equal(effectiveMode(m, null), 'files');
  });
  it('disables its buttons while a rewind runs', () => {
    assert.match(renderPreview(m, ui({ busy: true })), /data-action="editor-chat-restore"[^>]*disabled/);
  });
  it('without the offer, a conversation that cannot be rewound is still a problem', () => {
    const { editorChat: _, ...plain } = m;
    assert.equal(problemsOf(plain, ui())[0]?.part, 'conversation');
    assert.doesNotMatch(renderPreview(plain, ui()), /editor-chat-restore/);
  });
});

describe('renderPreview', () => {
  it('says when an interrupted rewind is settled first, above the files (escaped), and only then', () => {
    const m = samplePreview();
    assert.ok(m.files.ok);
    const line = 'An interrupted rewind is rolled back first (1 file: <b>.txt); what is shown here is from after that.';
    const html = renderPreview({ ...m, files: { ...m.files, recoveryFirst: line } }, ui());
    const shown = /data-testid="files-recovery"[\s\S]*?<\/p>/.exec(html)?.[0] ?? '';
    assert.match(shown, /An interrupted rewind is rolled back first \(1 file: &lt;b&gt;\.txt\); what is shown here is from after that\./);
    assert.ok(html.indexOf('data-testid="files-recovery"') < html.indexOf('data-testid="totals"'), 'above the totals');
    assert.doesNotMatch(renderPreview(m, ui()), /files-recovery/);
  });
  it('lists every changed file with its counts and the totals, using the agreed hooks', () => {
    const html = renderPreview(samplePreview(), ui());
    for (const path of ['src/a.ts', 'src/new.ts', 'README.md'])
      assert.match(html, new RegExp(`data-testid="file-row"[^>]*data-path="${path.replace('.', '\\.')}"`));
    const row = /data-path="src\/a\.ts"[\s\S]*?<\/button>/.exec(html)?.[0] ?? '';
    assert.equal(textOf(row, 'data-testid="insertions"'), '4');
    assert.equal(textOf(row, 'data-testid="deletions"'), '2');
    const totals = /data-testid="totals"[\s\S]*?<\/p>/.exec(html)?.[0] ?? '';
    assert.match(totals, /2 files<\/span> to restore/);
    assert.match(totals, /class="ins"[^>]*>8<\/span> <span class="del"[^>]*>2</);
    for (const v of ['all', 'conversation', 'files']) assert.match(html, new RegExp(`<input type="radio" name="mode" id="mode-${v}" value="${v}"`));
    assert.match(html, /data-action="confirm"/);
    assert.match(html, /data-action="cancel"/);
    assert.doesNotMatch(html, /data-testid="preview-error"/);
  });

  it('counts the hand-changed files in the totals only once the box is ticked', () => {
    assert.deepEqual(fileTotals(samplePreview(), ui()), { files: 2, insertions: 8, deletions: 2 });
    assert.deepEqual(fileTotals(samplePreview(), ui({ overwriteUserModified: true })), { files: 3, insertions: 8, deletions: 12 });
    assert.match(renderPreview(samplePreview(), ui({ overwriteUserModified: true })), /3 files<\/span> to restore/);
  });

  it('marks a listed file that is neither restored nor changed by hand as left as it is', () => {
    const m = samplePreview();
    if (m.files.ok) m.files.files.push({ path: 'dir/x', status: 'added', insertions: 1, deletions: 0, binary: false, userModified: false });
    assert.equal(fileFate(m, ui({ overwriteUserModified: true }), m.files.ok ? m.files.files.at(-1)! : (undefined as never)), 'skip');
    assert.match(renderPreview(m, ui()), /data-path="dir\/x"[^]*?left as it is/);
  });

  it('labels a file another session changed as theirs and kept, never as changed by you (issue 27)', () => {
    const m = samplePreview();
    if (m.files.ok)
      m.files.files.push({
        path: 'VERSION',
        status: 'modified',
        insertions: 1,
        deletions: 1,
        binary: false,
        userModified: false,
        changedBy: 'other-session',
        otherSession: 'sess-B',
        otherPrompt: 'p-2',
        kept: true,
      });
    const html = renderPreview(m, ui({ overwriteUserModified: true }));
    assert.match(
      html,
      /data-path="VERSION"[^]*?title="Changed by session sess-B \(prompt p-2\): this rewind leaves it as it is"[^]*?changed by another session — kept/,
    );
    const row = html.split('</li>').find((li) => /<li class="file-item">[^]*data-testid="file-row"[^>]*data-path="VERSION"/.test(li)) ?? '';
    assert.match(row, /another session — kept/);
    assert.doesNotMatch(row, /changed by you/);
  });

  it('flags files changed by hand and offers the overwrite box, unticked by default', () => {
    const html = renderPreview(samplePreview(), ui());
    assert.match(html, /data-path="README\.md"[^]*?changed by you — kept/);
    assert.match(html, /<input type="checkbox" id="overwrite-user-modified" data-action="toggle-overwrite">/);
    const ticked = renderPreview(samplePreview(), ui({ overwriteUserModified: true }));
    assert.match(ticked, /id="overwrite-user-modified" data-action="toggle-overwrite" checked/);
    assert.match(ticked, /changed by you — overwritten/);
  });

  it('lists skipped files with their reasons', () => {
    assert.match(
      renderPreview(samplePreview(), ui()),
      /data-testid="skipped-file" data-path="big\.bin"><code>big\.bin<\/code> <span class="muted">— larger than the 10 MB limit/,
    );
  });

  it('shows the new branch and the messages that stay on the old one', () => {
    const html = renderPreview(samplePreview(), ui());
    assert.match(html, /data-testid="new-branch">main-rewind-1</);
    assert.match(html, /3 messages stay on <strong>main<\/strong>/);
    assert.match(html, /data-entry-id="e0000009"/);
  });

  it('a files error is shown in words and does not hide the conversation', () => {
    const html = renderPreview(noFiles, ui());
    const error = /data-testid="preview-error"[\s\S]*?<\/div>/.exec(html)?.[0] ?? '';
    assert.match(error, /The files can’t be rewound to this message\.<\/strong> No file checkpoint was taken for this message\./);
    assert.match(html, /data-testid="new-branch">main-rewind-1</);
    assert.doesNotMatch(html, /data-testid="file-row"/);
    assert.match(html, /value="all"[^>]* disabled/);
    assert.match(html, /value="conversation" checked/);
  });

  it('says a problem with the message once, not once per part', () => {
    const err = 'Message "x" not found in this session.';
    const m = samplePreview({ conversation: { ok: false, error: err }, state: { ok: false, error: err } });
    assert.deepEqual(
      problemsOf(m, ui()).map((p) => p.part),
      ['conversation'],
    );
  });

  it('an apply error joins the problems', () => {
    assert.deepEqual(
      problemsOf(samplePreview(), ui({ applyError: 'src/a.ts is open with unsaved changes.' })).map((p) => p.part),
      ['apply'],
    );
    assert.match(
      renderPreview(samplePreview(), ui({ applyError: 'src/a.ts is open with unsaved changes.' })),
      /The rewind did not happen\.<\/strong> src\/a\.ts is open/,
    );
  });

  it('dims the parts a mode leaves alone', () => {
    assert.match(renderPreview(samplePreview(), ui({ mode: 'conversation' })), /class="part dimmed" id="part-files"/);
    assert.match(renderPreview(samplePreview(), ui({ mode: 'files' })), /class="part dimmed" id="part-conversation"/);
  });
});

describe('file ticks', () => {
  it('ticks the files the rewind restores; the default rewind names no selection', () => {
    const html = renderPreview(samplePreview(), ui());
    assert.match(html, /data-testid="file-tick" data-action="tick" data-path="src\/a\.ts" checked/);
    assert.match(html, /data-testid="file-tick" data-action="tick" data-path="README\.md" aria-label/, 'a hand-changed file is not ticked by default');
    assert.equal(selectedOnly(samplePreview(), ui()), undefined);
    assert.equal(selectedOnly(samplePreview(), ui({ overwriteUserModified: true })), undefined, 'the box alone is no selection');
  });

  it('an unticked file is kept, Confirm waits for the dry run of the selection, then counts what it restores', () => {
    const m = samplePreview();
    const picked = ui({ mode: 'files', picks: { 'src/a.ts': false } });
    const a = m.files.ok ? m.files.files[0]! : undefined;
    assert.equal(fileFate(m, picked, a!), 'unticked');
    assert.deepEqual(selectedOnly(m, picked), ['src/new.ts']);
    assert.equal(fileTotals(m, picked), undefined);
    assert.deepEqual(confirmState(m, picked), { enabled: false, label: 'Working out the files you chose…' });
    const answered = { ...picked, selection: { only: ['src/new.ts'], result: { filesChanged: ['src/new.ts'], insertions: 4, deletions: 0 } } };
    assert.deepEqual(confirmState(m, answered), { enabled: true, label: 'Rewind 1 file' });
    assert.match(renderPreview(m, answered), /data-testid="files-changed">1 file<\/span> to restore/);
    // an answer for another selection does not count
    const stale = { ...picked, selection: { only: ['src/a.ts'], result: { filesChanged: ['src/a.ts'], insertions: 4, deletions: 2 } } };
    assert.equal(fileTotals(m, stale), undefined);
  });

  it('ticking a hand-changed file includes it alone; nothing ticked is said, and a failed dry run blocks Confirm', () => {
    const m = samplePreview();
    assert.deepEqual(selectedOnly(m, ui({ picks: { 'README.md': true } })), ['src/a.ts', 'src/new.ts', 'README.md']);
    const none = ui({ mode: 'all', picks: { 'src/a.ts': false, 'src/new.ts': false } });
    assert.deepEqual(selectedOnly(m, none), []);
    const answered = { ...none, selection: { only: [], result: { filesChanged: [], insertions: 0, deletions: 0 } } };
    assert.deepEqual(confirmState(m, answered), { enabled: true, label: 'Rewind conversation (no file chosen)' });
    const failed = { ...none, selection: { only: [], error: 'The snapshot is gone.' } };
    assert.equal(confirmState(m, failed).enabled, false);
    assert.match(
      problemsOf(m, failed)
        .map((p) => p.detail)
        .join(),
      /The snapshot is gone\./,
    );
  });
});

describe('hunk ticks', () => {
  const hash = 'ab'.repeat(32);
  const aHunks: FileHunks = {
    path: 'src/a.ts',
    ok: true,
    hash,
    hunks: [
      { index: 1, anchorStart: 2, anchorLines: 1, nowStart: 2, nowLines: 3, insertions: 3, deletions: 1, lines: [{ kind: '-', text: 'old' }] },
      { index: 2, anchorStart: 9, anchorLines: 1, nowStart: 11, nowLines: 1, insertions: 1, deletions: 1, lines: [{ kind: '+', text: 'new <b>' }] },
    ],
  };
  const a = () => {
    const m = samplePreview();
    return m.files.ok ? m.files.files[0]! : undefined!;
  };

  it('a text file opens to its hunks, ticked as the file is; binary, new and deleted files have none to open', () => {
    const m = samplePreview();
    const closed = renderPreview(m, ui());
    assert.match(closed, /data-testid="hunks-toggle" data-action="toggle-hunks" data-path="src\/a\.ts" aria-expanded="false"/);
    assert.doesNotMatch(closed, /data-action="toggle-hunks" data-path="src\/new\.ts"/);
    const open = ui({ expanded: { 'src/a.ts': true }, hunks: { 'src/a.ts': aHunks } });
    const html = renderPreview(m, open);
    assert.match(html, /aria-expanded="true" aria-controls="hunks-0"/);
    assert.match(html, /data-testid="hunk-tick" data-action="hunk-tick" data-path="src\/a\.ts" data-hunk="1" checked/);
    assert.match(html, /new &lt;b&gt;/, "a hunk's lines are escaped");
    assert.deepEqual(tickedHunks(m, open, a()), [1, 2]);
    assert.equal(selectionOf(m, open), undefined, 'opening is no selection');
    const binary = samplePreview();
    if (binary.files.ok) binary.files.files[0] = { ...binary.files.files[0]!, binary: true };
    assert.match(renderPreview(binary, ui()), /data-testid="whole-file-only">whole file only</);
    const unsplittable = renderPreview(
      m,
      ui({ expanded: { 'src/a.ts': true }, hunks: { 'src/a.ts': { path: 'src/a.ts', ok: false, reason: 'its permissions changed too: whole file only' } } }),
    );
    assert.match(unsplittable, /data-testid="hunks-unavailable">Its permissions changed too: whole file only\.</);
  });

  it('some hunks ticked: the file is partial (mixed tick), its row counts them, the selection names them with the hash', () => {
    const m = samplePreview();
    const some = ui({ mode: 'files', expanded: { 'src/a.ts': true }, hunks: { 'src/a.ts': aHunks }, hunkPicks: { 'src/a.ts': [2] } });
    assert.equal(fileFate(m, some, a()), 'partial');
    assert.deepEqual(selectionOf(m, some), { only: ['src/new.ts'], hunks: [{ path: 'src/a.ts', hunks: [2], hash }] });
    const html = renderPreview(m, some);
    assert.match(html, /data-path="src\/a\.ts" data-mixed="true"/);
    assert.match(html, /data-testid="partial">hunk 2 of 2 — the rest kept</);
    assert.match(html, /data-testid="insertions"[^>]*>1<\/span><span class="del" data-testid="deletions"[^>]*>1</);
    assert.deepEqual(confirmState(m, some), { enabled: false, label: 'Working out the files you chose…' });
    const answered = {
      ...some,
      selection: {
        only: ['src/new.ts'],
        hunks: [{ path: 'src/a.ts', hunks: [2], hash }],
        result: { filesChanged: ['src/a.ts', 'src/new.ts'], insertions: 5, deletions: 1 },
      },
    };
    assert.deepEqual(confirmState(m, answered), { enabled: true, label: 'Rewind 2 files' });
    // the answer for the whole file does not count for some of its hunks
    const stale = { ...some, selection: { only: ['src/new.ts'], result: { filesChanged: ['src/new.ts'], insertions: 4, deletions: 0 } } };
    assert.equal(fileTotals(m, stale), undefined);
    // every hunk ticked is the whole file (no selection at all); none is the file left out
    assert.equal(selectionOf(m, { ...some, hunkPicks: { 'src/a.ts': [1, 2] } }), undefined);
    const none = { ...some, hunkPicks: { 'src/a.ts': [] } };
    assert.equal(fileFate(m, none, a()), 'unticked');
    assert.deepEqual(selectionOf(m, none), { only: ['src/new.ts'] });
  });
});
