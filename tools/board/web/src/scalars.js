// Scalars: one uPlot chart per tag with every selected run overlaid.
// Charts are fetched and drawn only when scrolled near the viewport
// (IntersectionObserver), so a hundred runs and many tags stay fast. Zooming
// (drag) refetches that step range so that downsampled detail appears;
// double-click goes back to the whole run.
//
// Test hooks: .chart-card[data-chart-tag=T][data-rendered] and, inside it,
// table.chart-data tr[data-run][data-points][data-seen][data-last-step][data-last-value].

import uPlot from 'uplot';
import { getJson } from './api.js';
import { h, message, fmtNumber, debounce, NON_FINITE } from './dom.js';
import { withAlpha } from './colors.js';
import { smooth } from './smoothing.js';

const MAX_POINTS = 1000;
const RAW_SERIES_MAX_RUNS = 10;

const settings = {
  smoothing: Number(localStorage.getItem('board.smoothing') ?? 0.6),
  xAxis: localStorage.getItem('board.xAxis') || 'step',
  log: localStorage.getItem('board.log') === 'true',
};

export class ScalarsView {
  constructor(app, root, controls) {
    this.app = app;
    this.root = root;
    this.cards = new Map();
    this.initialPending = null;
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), { root: null, rootMargin: '300px 0px' });
    this.renderControls(controls);
    this.list = h('div.chart-grid');
    this.root.append(this.list);
    this.onResize = debounce(() => { for (const c of this.cards.values()) c.resize(); }, 150);
    window.addEventListener('resize', this.onResize);
    this.update(null);
  }

  renderControls(controls) {
    const slider = h('input', { type: 'range', min: 0, max: 0.999, step: 0.001, value: settings.smoothing, id: 'smoothing' });
    const label = h('span.value', { text: settings.smoothing.toFixed(3) });
    slider.addEventListener('input', () => {
      settings.smoothing = Number(slider.value);
      label.textContent = settings.smoothing.toFixed(3);
      localStorage.setItem('board.smoothing', String(settings.smoothing));
      this.redrawAll();
    });
    const axis = h('select', { id: 'x-axis' },
      h('option', { value: 'step', text: 'step' }), h('option', { value: 'relative', text: 'relative time (s)' }),
      h('option', { value: 'wall', text: 'wall time' }));
    axis.value = settings.xAxis;
    axis.addEventListener('change', () => {
      settings.xAxis = axis.value;
      localStorage.setItem('board.xAxis', settings.xAxis);
      this.redrawAll(true);
    });
    const log = h('input', { type: 'checkbox', id: 'log-scale' });
    log.checked = settings.log;
    log.addEventListener('change', () => {
      settings.log = log.checked;
      localStorage.setItem('board.log', String(settings.log));
      this.redrawAll(true);
    });
    this.filter = h('input', { type: 'search', placeholder: 'filter tags (regex)', id: 'tag-filter' });
    this.filter.addEventListener('input', debounce(() => this.update(null), 200));
    controls.append(h('div.controls',
      h('label.control', {}, 'Smoothing ', slider, label),
      h('label.control', {}, 'X axis ', axis),
      h('label.control', {}, log, ' log scale (y)'),
      h('label.control', {}, this.filter),
      h('div.hint', { text: 'Drag on a chart to zoom into steps; double-click to reset.' })));
  }

  tagFilter() {
    const text = this.filter.value.trim();
    if (!text) return () => true;
    try { const re = new RegExp(text, 'i'); return (t) => re.test(t); } catch { return (t) => t.includes(text); }
  }

  update(changed) {
    const runs = this.app.selectedRuns();
    const tags = new Map(); // tag -> [run names]
    for (const r of runs) for (const t of r.scalar_tags) { if (!tags.has(t)) tags.set(t, []); tags.get(t).push(r.name); }
    const keep = this.tagFilter();
    const wanted = [...tags.keys()].filter(keep).sort();
    for (const [tag, card] of this.cards) {
      if (!wanted.includes(tag)) { this.observer.unobserve(card.el); card.destroy(); card.el.remove(); this.cards.delete(tag); }
    }
    wanted.forEach((tag, i) => {
      let card = this.cards.get(tag);
      if (!card) {
        card = new ChartCard(this.app, tag);
        this.cards.set(tag, card);
        this.observer.observe(card.el);
      }
      const before = this.list.children[i];
      if (before !== card.el) this.list.insertBefore(card.el, before || null);
      const runsOfTag = tags.get(tag);
      const sameRuns = card.runs.join('\n') === runsOfTag.join('\n');
      card.runs = runsOfTag;
      if (!sameRuns || !changed || runsOfTag.some((r) => changed.has(r))) card.invalidate();
    });
    const empty = this.root.querySelector(':scope > .empty');
    if (!wanted.length) {
      if (!empty) this.root.prepend(message(this.app.info.runs.length
        ? 'No scalar data for the selected runs (or the tag filter).'
        : 'No runs yet: the board lists every folder under --logdir that holds events.out.tfevents.* files.'));
      this.app.setReady('scalars');
    } else if (empty) empty.remove();
  }

  onIntersect(entries) {
    const first = this.initialPending === null;
    if (first) this.initialPending = new Set();
    for (const e of entries) {
      const card = [...this.cards.values()].find((c) => c.el === e.target);
      if (!card) continue;
      card.visible = e.isIntersecting;
      if (card.visible && card.stale) {
        const p = card.load();
        if (first) {
          this.initialPending.add(card);
          p.finally(() => { this.initialPending.delete(card); if (!this.initialPending.size) this.app.setReady('scalars'); });
        }
      }
    }
    if (first && !this.initialPending.size) this.app.setReady('scalars');
  }

  redrawAll(rebuild = false) {
    for (const c of this.cards.values()) if (c.data) c.draw(rebuild);
  }

  destroy() {
    this.observer.disconnect();
    window.removeEventListener('resize', this.onResize);
    for (const c of this.cards.values()) c.destroy();
  }
}

class ChartCard {
  constructor(app, tag) {
    this.app = app;
    this.tag = tag;
    this.runs = [];
    this.stale = true;
    this.visible = false;
    this.data = null;
    this.zoom = null; // [minStep, maxStep] while zoomed
    this.plot = null;
    this.seq = 0;
    this.plotEl = h('div.plot');
    this.errorEl = h('div.error');
    this.table = h('table.chart-data', { hidden: true });
    this.el = h('section.chart-card', { 'data-chart-tag': tag },
      h('h3', { text: tag }), this.errorEl, this.plotEl, this.table);
  }

  invalidate() {
    this.stale = true;
    if (this.visible) this.load();
  }

  async load() {
    this.stale = false;
    const seq = ++this.seq;
    const params = { tag: this.tag, run: this.runs, max_points: MAX_POINTS }; // one run= per run: names may hold commas
    if (this.zoom) { params.min_step = Math.floor(this.zoom[0]); params.max_step = Math.ceil(this.zoom[1]); }
    try {
      const data = await getJson('/api/scalars', params);
      if (seq !== this.seq) return;
      this.errorEl.textContent = '';
      this.data = data;
      this.draw(false);
    } catch (err) {
      if (seq === this.seq) this.errorEl.textContent = `${this.tag}: ${err.message}`;
    }
  }

  xOf(run, series) {
    if (settings.xAxis === 'step') return series.step;
    const base = settings.xAxis === 'relative' ? (this.app.runs.get(run)?.first_wall_time ?? series.wall_time[0] ?? 0) : 0;
    return series.wall_time.map((t) => t - base);
  }

  buildData() {
    const names = this.runs.filter((r) => this.data.runs[r]);
    const showRaw = settings.smoothing > 0 && names.length <= RAW_SERIES_MAX_RUNS;
    const tables = [];
    const series = [{ label: settings.xAxis }];
    const fix = (v) => (v === null || (settings.log && v <= 0) ? null : v);
    for (const run of names) {
      const d = this.data.runs[run];
      let xs = this.xOf(run, d);
      let ys = d.value;
      if (settings.xAxis !== 'step') { // time may go backwards across restarts; uPlot needs sorted x
        const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
        xs = order.map((i) => xs[i]); ys = order.map((i) => ys[i]);
      }
      const smoothed = smooth(ys, settings.smoothing).map(fix);
      const color = this.app.color(run);
      if (showRaw) {
        tables.push([xs, ys.map(fix)]);
        series.push({ label: `${run} (raw)`, stroke: withAlpha(color, 0.3), width: 1, spanGaps: true, points: { show: false } });
      }
      tables.push([xs, smoothed]);
      series.push({ label: run, stroke: color, width: 1.5, spanGaps: true }); // uPlot shows points only where sparse
    }
    return { data: joinTables(tables), series, names };
  }

  draw(rebuild) {
    if (!this.data) return;
    const { data, series, names } = this.buildData();
    this.fillTable(names);
    const key = series.map((s) => s.label).join('\n') + `|${settings.xAxis}|${settings.log}`;
    if (this.plot && !rebuild && key === this.plotKey) {
      this.plot.setData(data, !this.zoom);
    } else {
      this.plot?.destroy();
      this.plotKey = key;
      this.plot = new uPlot(this.options(series, names.length), data, this.plotEl);
      this.plot.over.addEventListener('dblclick', () => { if (this.zoom) { this.zoom = null; this.load(); } });
    }
    this.el.dataset.rendered = 'true';
  }

  options(series, nRuns) {
    const width = Math.max(300, this.plotEl.clientWidth || 480);
    return {
      width, height: 240,
      series,
      legend: { show: nRuns <= 12, live: nRuns <= 12 },
      cursor: { drag: { x: true, y: false, setScale: true }, points: { show: false } },
      scales: { x: { time: settings.xAxis === 'wall' }, y: settings.log ? { distr: 3, log: 10 } : { auto: true } },
      axes: [{ label: settings.xAxis === 'relative' ? 'seconds' : undefined, size: 40 }, { size: 60, values: (u, vals) => vals.map((v) => (v === null || v === undefined ? '' : fmtNumber(v))) }],
      hooks: {
        setSelect: [(u) => {
          if (u.select.width < 2 || settings.xAxis !== 'step') return;
          const lo = u.posToVal(u.select.left, 'x'), hi = u.posToVal(u.select.left + u.select.width, 'x');
          this.zoom = [lo, hi];
          this.load();
        }],
      },
    };
  }

  fillTable(names) {
    this.table.replaceChildren(h('tr', {}, h('th', { text: 'run' }), h('th', { text: 'points' }), h('th', { text: 'seen' }),
      h('th', { text: 'last step' }), h('th', { text: 'last value' })));
    for (const run of names) {
      const d = this.data.runs[run];
      const n = d.step.length;
      const attrs = { 'data-run': run, 'data-points': n, 'data-seen': d.seen, 'data-kept': d.kept };
      if (n) { attrs['data-last-step'] = d.step[n - 1]; attrs['data-last-value'] = d.value[n - 1] === null ? NON_FINITE : d.value[n - 1]; }
      this.table.append(h('tr', attrs, h('td', { text: run }), h('td', { text: n }), h('td', { text: d.seen }),
        h('td', { text: n ? d.step[n - 1] : '' }), h('td', { text: n ? fmtNumber(d.value[n - 1]) : '' })));
      this.el.setAttribute(`data-points-${run.toLowerCase().replace(/[^a-z0-9_.-]/g, '_')}`, n);
    }
  }

  resize() {
    if (this.plot) this.plot.setSize({ width: Math.max(300, this.plotEl.clientWidth), height: 240 });
  }

  destroy() { this.plot?.destroy(); this.plot = null; this.seq++; }
}

// [[xs, ys], ...] -> uPlot's aligned [xs, ys1, ys2, ...] (null where a run
// has no point at that x). Skips the merge when every run has the same xs.
export function joinTables(tables) {
  if (!tables.length) return [[]];
  const xs0 = tables[0][0];
  const same = tables.every(([xs]) => xs === xs0 || (xs.length === xs0.length && xs.every((x, i) => x === xs0[i])));
  if (same) return [xs0, ...tables.map((t) => t[1])];
  const all = Array.from(new Set(tables.flatMap(([xs]) => xs))).sort((a, b) => a - b);
  const pos = new Map(all.map((x, i) => [x, i]));
  return [all, ...tables.map(([xs, ys]) => {
    const out = new Array(all.length).fill(null);
    xs.forEach((x, i) => { out[pos.get(x)] = ys[i]; });
    return out;
  })];
}
