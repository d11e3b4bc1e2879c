// Unit tests of pure helpers behind review fixes (no browser):
//   node --test tools/board/web/test/
import test from 'node:test';
import assert from 'node:assert/strict';
import { niceStep, ticks } from '../src/ticks.js';
import { parseTrace } from '../src/trace_model.js';
import { distribution, valueRange, hasCounts } from '../src/percentiles.js';
import { apiUrl, imageUrl } from '../src/api.js';
import { restorePosition } from '../src/image_list.js';
import { fmtNumber, NON_FINITE } from '../src/dom.js';

test('ticks: multiples of the step inside the range', () => {
  assert.deepEqual(ticks(0.5, 3.2, 1), [1, 2, 3]);
  assert.deepEqual(ticks(-2, 2, niceStep(4 / 8)), [-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2]);
  assert.deepEqual(ticks(1, 0, 1), []);
  assert.deepEqual(ticks(0, NaN, 1), []);
  assert.deepEqual(ticks(0, 1, 0), []);
});

test('ticks end where t + step == t (epoch microseconds zoomed to ~1 us)', () => {
  const v0 = 1.7e15, v1 = v0 + 1;
  const step = niceStep((v1 - v0) / 8);
  assert.equal(v0 + step, v0); // the old `t += step` loop never ended here
  const t = ticks(v0, v1, step);
  assert.ok(t.length >= 1 && t.length <= 100, `${t.length} ticks`);
  for (let i = 1; i < t.length; i++) assert.ok(t[i] > t[i - 1]);
  assert.equal(ticks(0, 1e9, 1).length, 100); // capped
});

test('parseTrace handles more slices than a spread argument list allows', () => {
  const n = 300000;
  const events = [];
  for (let i = 0; i < n; i++) events.push({ ph: 'X', pid: 0, tid: i % 2, name: `op${i}`, ts: 1.7e15 + i * 10, dur: 5 });
  const m = parseTrace({ traceEvents: events });
  assert.equal(m.sliceCount, n);
  assert.equal(m.start, 1.7e15);
  assert.equal(m.end, 1.7e15 + (n - 1) * 10 + 5);
  assert.equal(m.lanes[0].depth, 1);
  const empty = parseTrace({ traceEvents: [] });
  assert.deepEqual([empty.start, empty.end, empty.sliceCount], [0, 1, 0]);
});

const DBL_MAX = 1.7976931348623157e308;
const emptyHist = (step) => ({ step, min: DBL_MAX, max: -DBL_MAX, num: 0, sum: 0, sum_squares: 0, bucket_limit: [DBL_MAX], bucket: [0] });

test('histograms with no values are left out of the bands and the range', () => {
  const full = (step) => ({ step, min: 0, max: 10, num: 100, bucket_limit: [5, 10], bucket: [50, 50] });
  assert.equal(hasCounts(emptyHist(0)), false);
  assert.equal(hasCounts(full(0)), true);
  const d = distribution([emptyHist(0), full(10), emptyHist(20), full(30)]);
  assert.deepEqual(d.steps, [10, 30]);
  assert.equal(d.ps.length, 2);
  assert.deepEqual([d.lo, d.hi, d.empty], [0, 10, false]);
  assert.deepEqual(valueRange([emptyHist(0), full(10)]), { lo: 0, hi: 10, empty: false });
  const none = distribution([emptyHist(0), emptyHist(1)]);
  assert.equal(none.empty, true);
  assert.ok(Number.isFinite(none.lo) && Number.isFinite(none.hi));
  assert.equal(valueRange([emptyHist(0)]).empty, true);
  assert.deepEqual(valueRange([{ step: 0, min: 3, max: 3, num: 1, bucket_limit: [3], bucket: [1] }]), { lo: 2.5, hi: 3.5, empty: false });
});

test('API URLs: one run= per run, every value encodeURIComponent-ed', () => {
  assert.equal(apiUrl('/api/scalars', { tag: 'a b/c', run: ['lr=0.1,bs=32', 'x&y'], max_points: 1000, min_step: undefined }),
    '/api/scalars?tag=a%20b%2Fc&run=lr%3D0.1%2Cbs%3D32&run=x%26y&max_points=1000');
  assert.equal(apiUrl('/api/runs'), '/api/runs');
  assert.equal(apiUrl('/api/scalars', { tag: 't', run: [] }), '/api/scalars?tag=t');
  assert.equal(imageUrl('a+b c', 'img/0', 7), '/api/image?run=a%2Bb%20c&tag=img%2F0&index=7');
  const q = new URL(apiUrl('/api/scalars', { run: ['lr=0.1,bs=32', 'é'] }), 'http://x').searchParams;
  assert.deepEqual(q.getAll('run'), ['lr=0.1,bs=32', 'é']);
});

test('image slider: a refresh keeps the same image while the list shifts', () => {
  const list = (from, to) => Array.from({ length: to - from }, (_, k) => ({ index: from + k, step: (from + k) * 50, wall_time: from + k }));
  const before = list(0, 10), after = list(3, 13);
  assert.equal(restorePosition(before, 5, after), 2); // image index 5 is now at position 2
  assert.equal(after[restorePosition(before, 5, after)].index, 5);
  assert.equal(restorePosition(before, 9, after), 9); // at the newest: stay at the newest
  assert.equal(restorePosition([], 0, after), 9);
  assert.equal(restorePosition(before, 1, after), 0); // pushed out: the oldest kept
  assert.equal(restorePosition(before, 5, []), 0);
  const noIndex = (l) => l.map(({ step, wall_time }) => ({ step, wall_time }));
  assert.equal(restorePosition(noIndex(before), 5, noIndex(after)), 2); // by step where there is no index
});

test('non-finite scalars (null) read as non-finite, not NaN', () => {
  assert.equal(fmtNumber(null), NON_FINITE);
  assert.equal(NON_FINITE, 'non-finite');
  assert.equal(fmtNumber(1.5), '1.5');
});
