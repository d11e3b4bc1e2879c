// The board's single-page app: the run list (polled from /api/runs), the
// hash router, and the views. A view is a class with
// constructor(app, root, controls), update(changedRunNames) and destroy().
// When a view has drawn what is on screen it calls app.setReady(name), which
// sets document.body.dataset.ready (tests and the benchmark wait on it).

import 'uplot/dist/uPlot.min.css';
import './board.css';
import { getJson } from './api.js';
import { indexedColor } from './colors.js';
import { h } from './dom.js';
import { ScalarsView } from './scalars.js';
import { HistogramsView } from './histograms.js';
import { GraphView } from './graph_view.js';
import { TracesView } from './traces.js';
import { ImagesView } from './images.js';

const VIEWS = { scalars: ScalarsView, histograms: HistogramsView, graph: GraphView, traces: TracesView, images: ImagesView };

class App {
  constructor() {
    this.info = { runs: [], graph_files: [], trace_files: [], logdir: '' };
    this.runs = new Map(); // name -> run object from /api/runs
    this.colors = new Map();
    this.deselected = new Set(JSON.parse(sessionStorage.getItem('board.deselected') || '[]'));
    this.view = null;
    this.route = null;
    this.loaded = false;
    const reload = new URLSearchParams(location.search).get('reload');
    this.reloadMs = reload === null || reload === '' || Number.isNaN(Number(reload)) ? 2000 : Math.max(0, Number(reload));
    this.viewRoot = document.getElementById('view');
    this.controlsRoot = document.getElementById('view-controls');
    this.statusEl = document.getElementById('status');
    document.getElementById('runs-all').addEventListener('click', () => this.selectAll(true));
    document.getElementById('runs-none').addEventListener('click', () => this.selectAll(false));
    document.getElementById('run-filter').addEventListener('input', () => this.renderRunList());
    window.addEventListener('hashchange', () => this.navigate());
    window.addEventListener('unhandledrejection', (e) => { this.setStatus(`error: ${e.reason?.message || e.reason}`, true); e.preventDefault(); });
  }

  async start() {
    await this.poll();
    this.navigate();
    if (this.reloadMs > 0) this.timer = setInterval(() => this.poll(), this.reloadMs);
  }

  async poll() {
    if (this.polling) return;
    this.polling = true;
    try {
      const info = await getJson('/api/runs');
      const changed = new Set();
      const names = new Set(info.runs.map((r) => r.name));
      for (const r of info.runs) {
        const old = this.runs.get(r.name);
        if (!old || old.generation !== r.generation) changed.add(r.name);
      }
      for (const name of this.runs.keys()) if (!names.has(name)) changed.add(name);
      const filesChanged = JSON.stringify([info.graph_files, info.trace_files]) !== JSON.stringify([this.info.graph_files, this.info.trace_files]);
      this.info = info;
      this.runs = new Map(info.runs.map((r) => [r.name, r]));
      info.runs.forEach((r, i) => { if (!this.colors.has(r.name)) this.colors.set(r.name, indexedColor(i)); });
      this.setStatus(info.runs.length ? `${info.runs.length} run${info.runs.length > 1 ? 's' : ''} · ${info.logdir}` : `no runs yet in ${info.logdir}`);
      if (changed.size || filesChanged || !this.loaded) {
        this.loaded = true;
        this.renderRunList();
        if (this.view && (changed.size || filesChanged)) this.view.update(changed);
      }
    } catch (err) {
      this.setStatus(`error: ${err.message}`, true);
    } finally {
      this.polling = false;
    }
  }

  setStatus(text, bad = false) {
    this.statusEl.textContent = text;
    this.statusEl.classList.toggle('bad', bad);
  }

  color(run) { return this.colors.get(run) || '#888'; }
  isSelected(run) { return !this.deselected.has(run); }
  selectedRuns() { return this.info.runs.filter((r) => this.isSelected(r.name)); }

  setSelected(run, on) {
    if (on) this.deselected.delete(run); else this.deselected.add(run);
    sessionStorage.setItem('board.deselected', JSON.stringify([...this.deselected]));
  }

  selectAll(on) {
    for (const r of this.info.runs) this.setSelected(r.name, on);
    this.renderRunList();
    this.view?.update(new Set(this.info.runs.map((r) => r.name)));
  }

  renderRunList() {
    const list = document.getElementById('run-list');
    const filter = document.getElementById('run-filter').value.trim().toLowerCase();
    document.getElementById('run-count').textContent = `(${this.selectedRuns().length}/${this.info.runs.length})`;
    list.replaceChildren(...this.info.runs.filter((r) => !filter || r.name.toLowerCase().includes(filter)).map((r) => {
      const box = h('input', { type: 'checkbox', 'data-run': r.name });
      box.checked = this.isSelected(r.name);
      box.addEventListener('change', () => {
        this.setSelected(r.name, box.checked);
        document.getElementById('run-count').textContent = `(${this.selectedRuns().length}/${this.info.runs.length})`;
        this.view?.update(new Set([r.name]));
      });
      return h('label.run', { title: r.name }, box, h('span.swatch', { style: `background:${this.color(r.name)}` }), h('span.run-name', { text: r.name }));
    }));
  }

  setReady(name) {
    if (this.route !== name || document.body.dataset.ready === name) return;
    // Milliseconds since navigation start: what bench/board/board_bench.mjs reports.
    document.body.dataset.readyMs = String(Math.round(performance.now()));
    document.body.dataset.ready = name;
  }

  navigate() {
    let route = location.hash.replace(/^#/, '').split('?')[0];
    if (!VIEWS[route]) route = 'scalars';
    if (route === this.route && this.view) return;
    this.view?.destroy();
    delete document.body.dataset.ready;
    delete document.body.dataset.readyMs;
    document.body.dataset.route = route;
    this.route = route;
    for (const a of document.querySelectorAll('#tabs a')) a.classList.toggle('active', a.dataset.route === route);
    this.viewRoot.replaceChildren();
    this.controlsRoot.replaceChildren();
    this.viewRoot.scrollTop = 0;
    this.view = new VIEWS[route](this, this.viewRoot, this.controlsRoot);
  }
}

const app = new App();
window.flowvmBoard = app;
app.start();
