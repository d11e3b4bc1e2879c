// Traces: the step statistics of a run (a RunMetadata tag) or a --trace file
// as a timeline: one lane per device process and thread, slices coloured by
// op, Send->Recv flows as arrows. Wheel zooms around the pointer, drag pans,
// double-click resets; hover shows a slice, click pins its details.
//
// Test hooks: .trace-slice[data-name][data-op], .flow-link[data-from][data-to],
// .trace-lane-label[data-lane].

import { getJson } from './api.js';
import { h, s, message, fmtNumber } from './dom.js';
import { nameColor } from './colors.js';
import { parseTrace } from './trace_model.js';
import { niceStep, ticks } from './ticks.js';

const ROW = 18;
const LANE_PAD = 6;
const AXIS = 24;

export class TracesView {
  constructor(app, root, controls) {
    this.app = app;
    this.root = root;
    this.source = sessionStorage.getItem('board.traceSource') || '';
    this.select = h('select', { id: 'trace-source' });
    this.select.addEventListener('change', () => { this.source = this.select.value; sessionStorage.setItem('board.traceSource', this.source); this.load(); });
    controls.append(h('div.controls', h('label.control', {}, 'Trace ', this.select),
      h('div.hint', { text: 'Wheel: zoom · drag: pan · double-click: reset · click a slice for details. Arrows: Send → Recv.' })));
    this.errorEl = h('div.error');
    this.labels = h('div.trace-labels');
    this.svg = s('svg', { class: 'trace-svg' });
    this.details = h('div.details-panel.trace-details', {}, h('div.hint', { text: 'Click a slice.' }));
    this.timeline = h('div.trace-timeline', {}, this.labels, h('div.trace-canvas', {}, this.svg));
    root.append(this.errorEl, this.timeline, this.details);
    this.model = null;
    this.seq = 0;
    this.bindInteraction();
    this.update(null);
  }

  sources() {
    const out = [];
    for (const r of this.app.selectedRuns()) for (const t of r.run_metadata_tags) out.push({ key: `run:${r.name}\u0000${t}`, label: `${r.name} · ${t}`, run: r.name, tag: t });
    for (const f of this.app.info.trace_files || []) out.push({ key: `file:${f}`, label: `file: ${f}`, file: f });
    return out;
  }

  update(changed) {
    const srcs = this.sources();
    this.select.replaceChildren(...srcs.map((x) => h('option', { value: x.key, text: x.label })));
    if (!srcs.find((x) => x.key === this.source)) this.source = srcs.length ? srcs[0].key : '';
    this.select.value = this.source;
    const cur = srcs.find((x) => x.key === this.source);
    this.root.querySelector(':scope > .empty')?.remove();
    if (!cur) {
      this.model = null;
      this.render();
      this.root.prepend(message('No traces: run a step with tracing (RunMetadata in the event file) or pass --trace FILE.json.'));
      this.app.setReady('traces');
      return;
    }
    if (!changed || !this.loadedKey || this.loadedKey !== this.source || (cur.run && changed.has(cur.run))) this.load();
  }

  async load() {
    const cur = this.sources().find((x) => x.key === this.source);
    if (!cur) return;
    const seq = ++this.seq;
    try {
      const json = await getJson('/api/trace', cur.file ? { file: cur.file } : { run: cur.run, tag: cur.tag });
      if (seq !== this.seq) return;
      const keepView = this.loadedKey === this.source && this.view;
      this.model = parseTrace(json);
      this.loadedKey = this.source;
      if (!keepView) this.view = this.fullView();
      this.errorEl.textContent = '';
      this.render();
    } catch (err) {
      if (seq === this.seq) this.errorEl.textContent = `trace ${cur.label}: ${err.message}`;
    }
    this.app.setReady('traces');
  }

  bindInteraction() {
    const canvas = () => this.svg.getBoundingClientRect();
    this.svg.addEventListener('wheel', (e) => {
      if (!this.model) return;
      e.preventDefault();
      const r = canvas();
      const [v0, v1] = this.view;
      const t = v0 + ((e.clientX - r.left) / r.width) * (v1 - v0);
      const k = Math.exp(Math.sign(e.deltaY) * Math.min(0.5, Math.abs(e.deltaY) / 300));
      const span = Math.max(0.01, Math.abs(t) * Number.EPSILON * 64, (v1 - v0) * k); // wider than doubles resolve at t
      this.view = [t - ((t - v0) / (v1 - v0)) * span, t + ((v1 - t) / (v1 - v0)) * span];
      this.render();
    }, { passive: false });
    let drag = null;
    this.svg.addEventListener('mousedown', (e) => { drag = { x: e.clientX, view: this.view }; });
    window.addEventListener('mousemove', this.onMove = (e) => {
      if (!drag || !this.model) return;
      const r = canvas();
      const dt = ((e.clientX - drag.x) / r.width) * (drag.view[1] - drag.view[0]);
      if (Math.abs(e.clientX - drag.x) > 2) { drag.moved = true; this.view = [drag.view[0] - dt, drag.view[1] - dt]; this.render(); }
    });
    window.addEventListener('mouseup', this.onUp = () => { setTimeout(() => { drag = null; }, 0); });
    this.svg.addEventListener('dblclick', () => { if (this.model) { this.view = this.fullView(); this.render(); } });
    this.svg.addEventListener('click', (e) => {
      if (drag?.moved) return;
      const g = e.target.closest('.trace-slice');
      if (g && g.__slice) this.showDetails(g.__slice);
    });
  }

  fullView() {
    const pad = (this.model.end - this.model.start) * 0.02;
    return [this.model.start - pad, this.model.end + pad];
  }

  laneY() {
    const ys = [];
    let y = AXIS;
    for (const l of this.model.lanes) { ys.push(y); y += laneHeight(l) + LANE_PAD; }
    return { ys, total: y };
  }

  render() {
    this.svg.replaceChildren();
    this.labels.replaceChildren();
    if (!this.model) return;
    const width = Math.max(400, this.svg.parentElement.clientWidth || 800);
    const { ys, total } = this.laneY();
    this.svg.setAttribute('width', width);
    this.svg.setAttribute('height', total);
    this.labels.style.height = `${total}px`;
    const [v0, v1] = this.view;
    const X = (t) => ((t - v0) / (v1 - v0)) * width;
    const defs = s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      s('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#c0392b' })));
    this.svg.append(defs);
    // Time axis.
    const axis = s('g', { class: 'trace-axis' });
    for (const t of ticks(v0, v1, niceStep((v1 - v0) / 8))) {
      axis.append(s('line', { x1: X(t), x2: X(t), y1: AXIS - 6, y2: total, class: 'grid' }), s('text', { x: X(t) + 2, y: AXIS - 10, text: fmtTime(t) }));
    }
    this.svg.append(axis);
    const body = s('g');
    this.model.lanes.forEach((lane, i) => {
      const y = ys[i];
      this.labels.append(h('div.trace-lane-label', { 'data-lane': lane.label, title: lane.label, style: `top:${y}px;height:${laneHeight(lane)}px` },
        h('span.proc', { text: shortDevice(lane.process) }), h('span.thread', { text: lane.thread })));
      body.append(s('rect', { x: 0, y: y - 2, width, height: laneHeight(lane) + 4, class: i % 2 ? 'lane-bg odd' : 'lane-bg' }));
      for (const sl of lane.slices) {
        const x0 = X(sl.ts), x1 = X(sl.ts + sl.dur);
        if (x1 < 0 || x0 > width) continue;
        const w = Math.max(1, x1 - x0);
        const op = sl.args?.op || sl.cat || sl.name;
        const g = s('g', { class: 'trace-slice', 'data-name': sl.name, 'data-op': op },
          s('rect', { x: x0, y: y + sl.depth * ROW, width: w, height: ROW - 2, fill: nameColor(String(op)) }),
          s('title', { text: `${sl.name}\n${op} · ${fmtTime(sl.dur)}` }));
        if (w > 40) g.append(s('text', { x: Math.max(x0, 0) + 3, y: y + sl.depth * ROW + 12, text: clip(sl.name, (Math.min(x1, width) - Math.max(x0, 0)) / 6.5) }));
        g.__slice = sl;
        body.append(g);
      }
    });
    this.svg.append(body);
    const flows = s('g', { class: 'flows' });
    for (const f of this.model.flows) {
      if (!f.fromLane || !f.toLane) continue;
      const yOf = (lane, sl) => ys[lane.index] + (sl ? sl.depth : 0) * ROW + ROW / 2;
      const x1 = X(f.fromTs), y1 = yOf(f.fromLane, f.from), x2 = X(f.toTs), y2 = yOf(f.toLane, f.to);
      const mid = (y1 + y2) / 2;
      flows.append(s('path', { class: 'flow-link', 'data-from': f.from?.name ?? '', 'data-to': f.to?.name ?? '', 'data-tensor': f.name,
        d: `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2}`, 'marker-end': 'url(#arrow)' },
        s('title', { text: `${f.name}: ${f.from?.name ?? '?'} → ${f.to?.name ?? '?'}` })));
    }
    this.svg.append(flows);
    this.timeline.dataset.slices = String(this.model.sliceCount);
    this.timeline.dataset.flows = String(this.model.flows.length);
  }

  showDetails(sl) {
    const rows = [['name', sl.name], ['op', sl.args?.op ?? sl.cat ?? ''], ['device', sl.lane.process], ['thread', sl.lane.thread],
      ['start', fmtTime(sl.ts - this.model.start)], ['duration', fmtTime(sl.dur)],
      ['inputs', (sl.args?.inputs || []).join(', ')], ['label', sl.args?.timeline_label ?? '']];
    for (const o of sl.args?.outputs || []) rows.push([`output ${o.slot}`, `${o.dtype} ${o.shape} (${o.requested_bytes} B)`]);
    this.details.replaceChildren(h('h4', { text: sl.name }), h('table', {}, rows.map(([k, v]) => h('tr', {}, h('th', { text: k }), h('td', { text: String(v) })))));
  }

  destroy() {
    window.removeEventListener('mousemove', this.onMove);
    window.removeEventListener('mouseup', this.onUp);
    this.seq++;
  }
}

function laneHeight(lane) { return Math.max(lane.depth * ROW, 28); }

function fmtTime(us) {
  const a = Math.abs(us);
  if (a >= 1e6) return `${fmtNumber(us / 1e6)} s`;
  if (a >= 1e3) return `${fmtNumber(us / 1e3)} ms`;
  return `${fmtNumber(us)} µs`;
}

function shortDevice(d) {
  const m = /\/job:([^/]+)\/replica:\d+\/task:(\d+)\/device:(\S+)/.exec(d);
  return m ? `${m[1]}:${m[2]} ${m[3]}` : d;
}

function clip(text, chars) {
  const n = Math.floor(chars);
  return text.length <= n ? text : `${text.slice(0, Math.max(1, n - 1))}…`;
}
