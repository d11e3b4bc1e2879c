// Histograms: per (run, tag) a "distributions" chart (percentile bands over
// steps, as TensorBoard draws them) and the per-step histograms, offset
// (one ridge per step, newest in front) or overlaid. Canvas, fetched when
// scrolled into view.
//
// Test hooks: .hist-card[data-hist-run][data-hist-tag][data-steps][data-rendered].

import { getJson } from './api.js';
import { h, message, fmtTick, debounce } from './dom.js';
import { withAlpha } from './colors.js';
import { distribution, valueRange, rebin } from './percentiles.js';

const BINS = 30;
const MAX_RIDGES = 40;
let mode = localStorage.getItem('board.histMode') || 'offset';

export class HistogramsView {
  constructor(app, root, controls) {
    this.app = app;
    this.root = root;
    this.cards = new Map();
    this.firstBatch = null;
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), { rootMargin: '300px 0px' });
    const sel = h('select', { id: 'hist-mode' }, h('option', { value: 'offset', text: 'offset' }), h('option', { value: 'overlay', text: 'overlay' }));
    sel.value = mode;
    sel.addEventListener('change', () => { mode = sel.value; localStorage.setItem('board.histMode', mode); for (const c of this.cards.values()) c.draw(); });
    controls.append(h('div.controls', h('label.control', {}, 'Histogram view ', sel),
      h('div.hint', { text: 'Distribution bands: 0–100 %, 7–93 %, 16–84 %, 31–69 % of values, and the median.' })));
    this.list = h('div.chart-grid');
    root.append(this.list);
    this.onResize = debounce(() => { for (const c of this.cards.values()) c.draw(); }, 150);
    window.addEventListener('resize', this.onResize);
    this.update(null);
  }

  update(changed) {
    const wanted = [];
    for (const r of this.app.selectedRuns()) for (const t of r.histogram_tags) wanted.push([r.name, t]);
    const keys = new Set(wanted.map(([r, t]) => `${r}\u0000${t}`));
    for (const [k, c] of this.cards) if (!keys.has(k)) { this.observer.unobserve(c.el); c.el.remove(); this.cards.delete(k); }
    wanted.forEach(([run, tag], i) => {
      const k = `${run}\u0000${tag}`;
      let c = this.cards.get(k);
      if (!c) { c = new HistCard(this.app, run, tag); this.cards.set(k, c); this.observer.observe(c.el); }
      if (this.list.children[i] !== c.el) this.list.insertBefore(c.el, this.list.children[i] || null);
      if (!changed || changed.has(run)) c.invalidate();
    });
    this.root.querySelector(':scope > .empty')?.remove();
    if (!wanted.length) {
      this.root.prepend(message('No histogram data for the selected runs (HistogramSummary writes it).'));
      this.app.setReady('histograms');
    }
  }

  onIntersect(entries) {
    const first = this.firstBatch === null;
    if (first) this.firstBatch = new Set();
    for (const e of entries) {
      const c = [...this.cards.values()].find((x) => x.el === e.target);
      if (!c) continue;
      c.visible = e.isIntersecting;
      if (c.visible && c.stale) {
        const p = c.load();
        if (first) { this.firstBatch.add(c); p.finally(() => { this.firstBatch.delete(c); if (!this.firstBatch.size) this.app.setReady('histograms'); }); }
      }
    }
    if (first && !this.firstBatch.size) this.app.setReady('histograms');
  }

  destroy() { this.observer.disconnect(); window.removeEventListener('resize', this.onResize); }
}

class HistCard {
  constructor(app, run, tag) {
    this.app = app; this.run = run; this.tag = tag;
    this.stale = true; this.visible = false; this.data = null; this.seq = 0;
    this.dist = h('canvas.hist-canvas');
    this.ridges = h('canvas.hist-canvas');
    this.errorEl = h('div.error');
    this.el = h('section.chart-card.hist-card', { 'data-hist-run': run, 'data-hist-tag': tag },
      h('h3', {}, h('span.swatch', { style: `background:${app.color(run)}` }), `${tag} · ${run}`), this.errorEl,
      h('div.hist-pair', h('figure', h('figcaption', { text: 'distribution over steps' }), this.dist),
        h('figure', h('figcaption', { text: 'histograms per step' }), this.ridges)));
  }

  invalidate() { this.stale = true; if (this.visible) this.load(); }

  async load() {
    this.stale = false;
    const seq = ++this.seq;
    try {
      const d = await getJson('/api/histograms', { run: this.run, tag: this.tag });
      if (seq !== this.seq) return;
      this.data = d.histograms;
      this.errorEl.textContent = '';
      this.draw();
    } catch (err) {
      if (seq === this.seq) this.errorEl.textContent = `${this.run} ${this.tag}: ${err.message}`;
    }
  }

  draw() {
    if (!this.data) return;
    drawDistribution(this.dist, this.data, this.app.color(this.run));
    drawRidges(this.ridges, this.data, this.app.color(this.run));
    this.el.dataset.steps = String(this.data.length);
    this.el.dataset.rendered = 'true';
  }
}

function setupCanvas(canvas, height) {
  const width = Math.max(260, canvas.parentElement?.clientWidth || 360);
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * dpr); canvas.height = Math.round(height * dpr);
  canvas.style.width = `${width}px`; canvas.style.height = `${height}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = '11px system-ui, sans-serif';
  return { ctx, width, height };
}

// The five labels of an axis from lo to hi, to 3 significant digits.
function tickLabels(lo, hi) {
  const labels = [];
  for (let k = 0; k <= 4; k++) labels.push(fmtTick(lo + ((hi - lo) * k) / 4));
  return labels;
}

// The left margin that fits the widest y label (a cut-off minus sign
// would show a negative value as positive).
function leftMargin(ctx, labels) {
  let widest = 0;
  for (const t of labels) widest = Math.max(widest, ctx.measureText(t).width);
  return Math.max(40, Math.ceil(widest) + 10);
}

function axes(ctx, box, x0, x1, yLabels, xLabel) {
  ctx.strokeStyle = '#999'; ctx.fillStyle = '#555'; ctx.lineWidth = 1;
  ctx.beginPath(); ctx.moveTo(box.l, box.t); ctx.lineTo(box.l, box.b); ctx.lineTo(box.r, box.b); ctx.stroke();
  ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
  yLabels.forEach((t, k) => ctx.fillText(t, box.l - 4, box.b - ((box.b - box.t) * k) / 4));
  ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  tickLabels(x0, x1).forEach((t, k) => ctx.fillText(t, box.l + ((box.r - box.l) * k) / 4, box.b + 4));
  if (xLabel) ctx.fillText(xLabel, (box.l + box.r) / 2, box.b + 18);
}

function drawDistribution(canvas, hists, color) {
  const { ctx, width, height } = setupCanvas(canvas, 220);
  if (!hists.length) return;
  // Histograms with no values (min = DBL_MAX) would stretch the bands and the range.
  const { steps, ps, lo, hi, empty } = distribution(hists);
  const yLabels = empty ? [] : tickLabels(lo, hi);
  const box = { l: empty ? 56 : leftMargin(ctx, yLabels), r: width - 24, t: 10, b: height - 36 };
  if (empty) { emptyNote(ctx, box); return; }
  const s0 = steps[0], s1 = steps[steps.length - 1] === s0 ? s0 + 1 : steps[steps.length - 1];
  const X = (s) => box.l + ((s - s0) / (s1 - s0)) * (box.r - box.l);
  const Y = (v) => box.b - ((v - lo) / (hi - lo)) * (box.b - box.t);
  const bands = [[0, 8, 0.15], [1, 7, 0.25], [2, 6, 0.35], [3, 5, 0.45]];
  for (const [a, b, alpha] of bands) {
    ctx.fillStyle = withAlpha(color, alpha);
    ctx.beginPath();
    steps.forEach((s, i) => (i ? ctx.lineTo(X(s), Y(ps[i][b])) : ctx.moveTo(X(s), Y(ps[i][b]))));
    for (let i = steps.length - 1; i >= 0; i--) ctx.lineTo(X(steps[i]), Y(ps[i][a]));
    ctx.closePath(); ctx.fill();
  }
  ctx.strokeStyle = color; ctx.lineWidth = 1.5;
  ctx.beginPath();
  steps.forEach((s, i) => (i ? ctx.lineTo(X(s), Y(ps[i][4])) : ctx.moveTo(X(s), Y(ps[i][4]))));
  ctx.stroke();
  axes(ctx, box, s0, s1, yLabels, 'step');
}

function drawRidges(canvas, hists, color) {
  const { ctx, width, height } = setupCanvas(canvas, 220);
  if (!hists.length) return;
  const stride = Math.ceil(hists.length / MAX_RIDGES);
  const shown = hists.filter((_, i) => i % stride === 0 || i === hists.length - 1);
  const box = { l: 56, r: width - 24, t: 10, b: height - 36 };
  const { lo, hi, empty } = valueRange(shown); // empty histograms draw flat, outside the range
  if (empty) { emptyNote(ctx, box); return; }
  const binned = shown.map((x) => rebin(x, lo, hi, BINS));
  let peak = 1e-12;
  for (const b of binned) for (const c of b) if (c > peak) peak = c;
  const offset = mode === 'offset';
  const ridgeSpace = offset ? (box.b - box.t) * 0.5 : 0;
  const ridgeHeight = (box.b - box.t) - ridgeSpace;
  const X = (k) => box.l + ((k + 0.5) / BINS) * (box.r - box.l);
  shown.forEach((_, j) => {
    const i = shown.length - 1 - j; // oldest at the back (top), newest in front
    const base = box.b - (offset && shown.length > 1 ? (ridgeSpace * i) / (shown.length - 1) : 0);
    const age = shown.length > 1 ? 1 - i / (shown.length - 1) : 1; // 1 = newest
    ctx.beginPath();
    ctx.moveTo(box.l, base);
    binned[i].forEach((c, k) => ctx.lineTo(X(k), base - (c / peak) * ridgeHeight));
    ctx.lineTo(box.r, base);
    if (offset) { ctx.fillStyle = '#fff'; ctx.fill(); }
    ctx.strokeStyle = withAlpha(color, 0.25 + 0.75 * age);
    ctx.lineWidth = 1;
    ctx.stroke();
  });
  ctx.strokeStyle = '#999';
  ctx.beginPath(); ctx.moveTo(box.l, box.b); ctx.lineTo(box.r, box.b); ctx.stroke();
  ctx.fillStyle = '#555'; ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  tickLabels(lo, hi).forEach((t, k) => ctx.fillText(t, box.l + ((box.r - box.l) * k) / 4, box.b + 4));
  ctx.fillText(`value (steps ${shown[0].step}–${shown[shown.length - 1].step}, newest in front)`, (box.l + box.r) / 2, box.b + 18);
}

function emptyNote(ctx, box) {
  ctx.fillStyle = '#555'; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
  ctx.fillText('no values (every histogram is empty)', (box.l + box.r) / 2, (box.t + box.b) / 2);
}
