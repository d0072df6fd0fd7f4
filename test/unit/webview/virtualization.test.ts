// Virtualization math and paging for big transcripts: a generated 10,000-message session, scrolled through the
// real host controller and the webview's RowPages/HeightMap, asks for a few pages and renders a small window.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { TranscriptToWebview } from '../../../src/shared/protocol';
import { TranscriptController } from '../../../src/extension/webviews/transcript-controller';
import { anchorAt, HeightMap, scrollTopFor } from '../../../webview-ui/src/transcript/height-map';
import { RowPages } from '../../../webview-ui/src/transcript/row-pages';
import { FakeServices, FakeUi, generateTranscript } from './fakes';

/** The slow, obviously right version: offsets by summing. */
function naiveOffset(heights: number[], index: number): number {
  return heights.slice(0, index).reduce((a, b) => a + b, 0);
}

describe('HeightMap', () => {
  it('matches a naive prefix sum under random measurements (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2000 })), { maxLength: 200 }),
        fc.nat(),
        (count, sets, probe) => {
          const map = new HeightMap(count, 50);
          const naive = new Array<number>(count).fill(50);
          for (const [i, h] of sets) {
            map.set(i % count, h);
            naive[i % count] = h;
          }
          const index = probe % (count + 1);
          if (map.offsetOf(index) !== naiveOffset(naive, index)) return false;
          if (map.totalHeight !== naiveOffset(naive, count)) return false;
          // indexAt(y) is the row that covers y.
          const y = probe % (map.totalHeight + 1);
          const at = map.indexAt(y);
          return map.offsetOf(at) <= y && (at === count - 1 || y < map.offsetOf(at + 1));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives a window of a few rows plus overscan in a 10,000-row list', () => {
    const map = new HeightMap(10_000, 100);
    const range = map.visibleRange(500_000, 800, 400);
    assert.deepEqual(range, { start: 4996, end: 5013 });
    assert.equal(map.totalHeight, 1_000_000);
    assert.deepEqual(map.visibleRange(0, 800, 400), { start: 0, end: 13 });
    assert.deepEqual(map.visibleRange(2_000_000, 800, 400).end, 10_000);
    assert.deepEqual(new HeightMap(0, 100).visibleRange(0, 800, 400), { start: 0, end: 0 });
  });

  it('keeps the anchored row in place when rows above it change height', () => {
    const map = new HeightMap(1000, 100);
    const anchor = anchorAt(map, 50_030);
    assert.deepEqual(anchor, { index: 500, offset: 30 });
    map.set(10, 400); // a row far above grew by 300px once rendered
    assert.equal(scrollTopFor(map, anchor), 50_330);
  });

  it('resize keeps the measurements of rows that are still there', () => {
    const map = new HeightMap(3, 100);
    map.set(0, 10);
    map.set(2, 30);
    map.resize(5, 3);
    assert.equal(map.totalHeight, 10 + 100 + 30 + 100 + 100);
    assert.equal(map.isMeasured(2), true);
    map.resize(2, 0);
    assert.equal(map.totalHeight, 200);
    assert.equal(map.isMeasured(0), false);
  });
});

describe('RowPages', () => {
  it('claims each missing page once and clamps the last page', () => {
    const pages = new RowPages(200);
    pages.reset(1, 450);
    assert.deepEqual(pages.claimMissing(150, 260), [
      { page: 0, start: 0, count: 200 },
      { page: 1, start: 200, count: 200 },
    ]);
    assert.deepEqual(pages.claimMissing(150, 260), []);
    assert.deepEqual(pages.claimMissing(0, 10_000), [{ page: 2, start: 400, count: 50 }]);
  });

  it('drops pages of an older version and misaligned pages', () => {
    const pages = new RowPages(10);
    pages.reset(1, 30);
    pages.claimMissing(0, 10);
    pages.reset(2, 30);
    assert.equal(pages.store(1, 0, generateTranscript(10).items), false);
    assert.equal(pages.store(2, 5, generateTranscript(10).items), false);
    assert.equal(pages.get(0), undefined);
    assert.equal(pages.store(2, 0, generateTranscript(10).items), true);
    assert.equal(pages.get(3)?.entryId, 'e0000003');
    assert.equal(pages.indexOf('e0000004'), 4);
  });

  it('asks again for a page whose request failed', () => {
    const pages = new RowPages(10);
    pages.reset(1, 30);
    assert.equal(pages.claimMissing(0, 5).length, 1);
    pages.release(0);
    assert.equal(pages.claimMissing(0, 5).length, 1);
  });
});

describe('a 10,000-message session through the host controller', () => {
  it('serves only the pages the viewport needs while scrolling from top to bottom', async () => {
    const services = new FakeServices();
    services.transcript = generateTranscript(10_000);
    const posted: TranscriptToWebview[] = [];
    const controller = new TranscriptController({ sessionRef: '/s.jsonl' }, services, (m) => posted.push(m), new FakeUi());
    await controller.handle({ type: 'ready' });
    const model = posted.find((m) => m.type === 'model');
    assert.ok(model && model.type === 'model');
    assert.equal(model.model.total, 10_000);

    const heights = new HeightMap(model.model.total, 110);
    const pages = new RowPages(200);
    pages.reset(model.version, model.model.total);
    let requestId = 0;
    let maxWindow = 0;
    // Scroll in viewport-sized steps; every visible row must be available after its page arrived.
    for (let scrollTop = 0; scrollTop < heights.totalHeight; scrollTop += 800) {
      const range = heights.visibleRange(scrollTop, 800, 800);
      maxWindow = Math.max(maxWindow, range.end - range.start);
      for (const page of pages.claimMissing(range.start, range.end)) {
        const before = posted.length;
        await controller.handle({ type: 'rows', requestId: ++requestId, version: pages.version, start: page.start, count: page.count });
        const response = posted[before];
        assert.ok(response?.type === 'response' && response.ok);
        const result = response.result as { version: number; start: number; items: unknown[] };
        assert.equal(pages.store(result.version, result.start, result.items as never), true);
      }
      for (let i = range.start; i < range.end; i++) assert.ok(pages.get(i), `row ${i} missing at ${scrollTop}`);
    }
    assert.equal(requestId, 50, 'each of the 50 pages is asked for exactly once');
    assert.ok(maxWindow <= 30, `the DOM window stays small (${maxWindow} rows)`);
    controller.dispose();
  });
});
