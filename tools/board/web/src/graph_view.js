// Graph: a run's GraphDef (or a --graph file) drawn top to bottom with
// dagre. Name scopes are boxes that expand on click (their header collapses
// them again); only what graph_model.visible() returns is laid out, so a
// 10,000-node graph costs a few hundred boxes. High-degree nodes sit in a
// side column, with stubs where their edges would be.
//
// Test hooks: [data-node-name] (laid-out nodes and the side column),
// [data-scope-name][data-expanded], [data-group-id][data-expanded],
// #graph-search, .graph-details (the clicked node).

import dagre from '@dagrejs/dagre';
import { getJson } from './api.js';
import { h, s, message } from './dom.js';
import { indexedColor, withAlpha } from './colors.js';
import { GraphModel, MAX_CHILDREN, MAX_VISIBLE, MIN_SCOPES_REACHED } from './graph_model.js';

export class GraphView {
  constructor(app, root, controls) {
    this.app = app;
    this.root = root;
    this.source = sessionStorage.getItem('board.graphSource') || '';
    this.expanded = new Set();
    this.selected = null;
    this.seq = 0;
    this.select = h('select', { id: 'graph-source' });
    this.select.addEventListener('change', () => { this.source = this.select.value; sessionStorage.setItem('board.graphSource', this.source); this.expanded = new Set(); this.load(); });
    this.searchBox = h('input', { type: 'search', id: 'graph-search', placeholder: 'find node by name', autocomplete: 'off' });
    this.results = h('div.search-results');
    this.searchBox.addEventListener('input', () => this.showResults());
    this.searchBox.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { const r = this.model?.search(this.searchBox.value, 1); if (r?.length) this.goTo(r[0]); }
    });
    this.legend = h('div.legend');
    controls.append(h('div.controls', h('label.control', {}, 'Graph ', this.select), h('label.control', {}, this.searchBox), this.results, this.legend));
    this.notice = h('div.notice');
    this.errorEl = h('div.error');
    this.svg = s('svg', { class: 'graph-svg' });
    this.viewport = s('g', { class: 'viewport' });
    this.svg.append(graphDefs(), this.viewport);
    this.side = h('div.extracted-column');
    this.details = h('div.details-panel.graph-details', {}, h('div.hint', { text: 'Click a node for its op, device, inputs, attrs and shapes; click a box to open it.' }));
    this.canvas = h('div.graph-canvas', {}, this.svg);
    this.layoutEl = h('div.graph-layout', {}, this.canvas, h('div.graph-side', {}, this.side, this.details));
    root.append(this.errorEl, this.notice, this.layoutEl);
    this.transform = { x: 0, y: 0, k: 1 };
    this.bindPanZoom();
    this.update(null);
  }

  sources() {
    const out = [];
    for (const r of this.app.info.runs) if (r.has_graph) out.push({ key: `run:${r.name}`, label: `run ${r.name}`, run: r.name });
    for (const f of this.app.info.graph_files || []) out.push({ key: `file:${f}`, label: `file ${f}`, file: f });
    return out;
  }

  update(changed) {
    const srcs = this.sources();
    this.select.replaceChildren(...srcs.map((x) => h('option', { value: x.key, text: x.label })));
    if (!srcs.find((x) => x.key === this.source)) {
      const firstSelected = srcs.find((x) => x.run && this.app.isSelected(x.run));
      this.source = (firstSelected || srcs[0])?.key || '';
    }
    this.select.value = this.source;
    this.root.querySelector(':scope > .empty')?.remove();
    const cur = srcs.find((x) => x.key === this.source);
    this.layoutEl.hidden = !cur;
    if (!cur) {
      this.root.prepend(message('No graph: runs get one from SummaryWriter::AddGraph, or pass --graph FILE.pb / .pbtxt.'));
      this.app.setReady('graph');
      return;
    }
    if (!changed || this.loadedKey !== this.source || (cur.run && changed.has(cur.run))) this.load();
  }

  async load() {
    const cur = this.sources().find((x) => x.key === this.source);
    if (!cur) return;
    const seq = ++this.seq;
    try {
      const g = await getJson('/api/graph', cur.file ? { file: cur.file } : { run: cur.run });
      if (seq !== this.seq) return;
      const t0 = performance.now();
      const same = this.loadedKey === this.source;
      this.model = new GraphModel(g.nodes || []);
      this.loadedKey = this.source;
      this.devices = (g.devices && g.devices.length ? g.devices : this.model.devices);
      this.deviceColor = new Map(this.devices.map((d, i) => [d, indexedColor(i)]));
      if (!same) { this.expanded = new Set(); this.transform = null; }
      else this.expanded = new Set([...this.expanded].filter((id) => this.model.items.has(id)));
      const problems = [...(g.errors || []), ...this.model.problems];
      this.errorEl.textContent = problems.length ? `${problems.length} problem(s): ${problems.slice(0, 5).join('; ')}` : '';
      this.renderLegend();
      this.renderSide();
      this.relayout();
      this.root.dataset.modelMs = String(Math.round(performance.now() - t0));
    } catch (err) {
      if (seq === this.seq) this.errorEl.textContent = `graph ${cur.label}: ${err.message}`;
    }
    this.app.setReady('graph');
  }

  colorOf(item) {
    if (this.devices.length < 2) return null;
    if (item.devices.size === 1) return this.deviceColor.get([...item.devices.keys()][0]);
    return item.devices.size ? '#b8b8b8' : null;
  }

  renderLegend() {
    const m = this.model;
    const parts = [h('div.legend-title', { text: `${m.nodes.size} nodes · ${m.edges.length} edges` })];
    if (this.devices.length > 1) {
      parts.push(h('div.legend-title', { text: 'Devices' }));
      for (const d of this.devices) parts.push(h('div.legend-row', {}, h('span.swatch', { style: `background:${this.deviceColor.get(d)}` }), d));
      parts.push(h('div.legend-row', {}, h('span.swatch', { style: 'background:#b8b8b8' }), 'several devices'));
    }
    parts.push(h('div.legend-row', {}, h('span.line-solid'), 'data edge (count if > 1)'),
      h('div.legend-row', {}, h('span.line-dashed'), 'control edge'),
      h('div.legend-row', {}, h('span.stub-dot'), 'stub: edge to a node in the side column'),
      h('div.hint', { text: `Side column (${m.extracted.length}): nodes with more than max(8, 4 × median degree ${m.medianDegree}) = ${m.degreeThreshold} edges that reach ${MIN_SCOPES_REACHED} or more other top-level scopes.` }),
      h('div.hint', { text: `Numbered scopes (layer_0, layer_1, …) form one series box; boxes with more than ${MAX_CHILDREN} children group them by op type, then into numbered ranges. At most ${MAX_VISIBLE} items are laid out at once.` }));
    this.legend.replaceChildren(...parts);
  }

  renderSide() {
    const list = this.model.extracted;
    const shown = list.slice(0, 200);
    this.side.replaceChildren(h('div.side-title', { text: `Set aside (${list.length})` }),
      ...shown.map((n) => h('div.extracted-node', { 'data-node-name': n.name, 'data-extracted': 'true', title: n.name,
        style: this.devices.length > 1 && n.device ? `border-left-color:${this.deviceColor.get(n.device)}` : undefined,
        onclick: () => this.showDetails(n) }, h('span.name', { text: n.name }), h('span.meta', { text: `${n.op} · ${n.degree}` }))),
      ...(list.length > shown.length ? [h('div.hint', { text: `… ${list.length - shown.length} more (use search)` })] : []));
  }

  relayout(anchorId) {
    const t0 = performance.now();
    const before = anchorId && this.positions?.get(anchorId);
    const vis = this.model.visible(this.expanded);
    const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
    g.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 42, edgesep: 8, marginx: 20, marginy: 20 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const item of vis.leaves) {
      const box = item.kind !== 'node';
      const text = box ? item.label : item.label;
      g.setNode(item.id, { width: Math.min(box ? 220 : 200, Math.max(box ? 90 : 56, text.length * 7 + 24)), height: box ? 42 : 26 });
    }
    for (const c of vis.clusters) g.setNode(c.id, {});
    for (const item of [...vis.leaves, ...vis.clusters]) if (item.parent && item.parent !== this.model.root) g.setParent(item.id, item.parent.id);
    vis.edges.forEach((e, i) => g.setEdge(e.from.id, e.to.id, { weight: e.control ? 1 : 2, minlen: 1 }, `e${i}`));
    try {
      dagre.layout(g);
    } catch (err) {
      this.errorEl.textContent = `layout failed: ${err.message}`;
      return;
    }
    this.draw(g, vis);
    this.root.dataset.layoutMs = String(Math.round(performance.now() - t0));
    this.root.dataset.visibleItems = String(vis.leaves.length);
    const after = anchorId && this.positions?.get(anchorId);
    if (before && after && this.transform) {
      this.transform.x += (before.x - after.x) * this.transform.k;
      this.transform.y += (before.y - after.y) * this.transform.k;
      this.ensureVisible(after);
    } else this.fit();
  }

  draw(g, vis) {
    const clusters = s('g', { class: 'clusters' }), edges = s('g', { class: 'edges' }), nodes = s('g', { class: 'nodes' });
    this.positions = new Map();
    const depth = (item) => { let d = 0; for (let p = item.parent; p; p = p.parent) d++; return d; };
    for (const c of [...vis.clusters].sort((a, b) => depth(a) - depth(b))) {
      const n = g.node(c.id);
      if (!n || !Number.isFinite(n.x)) continue;
      const x = n.x - n.width / 2 - 8, y = n.y - n.height / 2 - 24, w = n.width + 16, hgt = n.height + 32;
      this.positions.set(c.id, { x: n.x, y: n.y, left: x, top: y, width: w, height: hgt });
      const attrs = c.kind === 'scope' ? { 'data-scope-name': c.path } : { 'data-group-id': c.id };
      const header = s('g', { class: 'cluster-header' },
        s('rect', { x, y, width: w, height: 22, rx: 6 }),
        s('text', { x: x + 8, y: y + 15, class: 'cluster-label', text: `▾ ${clip(c.kind === 'scope' ? c.path : c.label, w / 7)}` }),
        s('title', { text: `${c.kind === 'scope' ? c.path : c.label}: ${c.count} nodes (click to close)` }));
      header.addEventListener('click', (e) => { e.stopPropagation(); this.collapse(c.id); });
      clusters.append(s('g', { class: `gcluster ${c.kind}`, 'data-expanded': 'true', ...attrs },
        s('rect', { x, y, width: w, height: hgt, rx: 6, class: 'cluster-body' }), header));
    }
    for (const e of vis.edges) {
      const ed = g.edge({ v: e.from.id, w: e.to.id, name: `e${vis.edges.indexOf(e)}` });
      if (!ed || !ed.points) continue;
      const pts = ed.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
      if (pts.length < 2) continue;
      const d = `M${pts[0].x},${pts[0].y}` + pts.slice(1).map((p) => ` L${p.x},${p.y}`).join('');
      const width = Math.min(4, 1 + Math.log2(e.count));
      const el = s('g', { class: `gedge${e.control ? ' control' : ''}`, 'data-from': e.from.path, 'data-to': e.to.path, 'data-count': e.count },
        s('path', { d, 'stroke-width': width, 'marker-end': e.control ? 'url(#garrow-c)' : 'url(#garrow)' }),
        s('title', { text: `${e.from.path} → ${e.to.path}: ${e.count} ${e.control ? 'control' : 'data'} edge${e.count > 1 ? 's' : ''}` }));
      if (e.count > 1) {
        const mid = pts[Math.floor(pts.length / 2)];
        el.append(s('text', { x: mid.x + 4, y: mid.y - 2, class: 'edge-count', text: String(e.count) }));
      }
      edges.append(el);
    }
    for (const item of vis.leaves) {
      const n = g.node(item.id);
      if (!n || !Number.isFinite(n.x)) continue;
      const x = n.x - n.width / 2, y = n.y - n.height / 2;
      this.positions.set(item.id, { x: n.x, y: n.y, left: x, top: y, width: n.width, height: n.height });
      const fill = this.colorOf(item);
      let el;
      if (item.kind === 'node') {
        el = s('g', { class: `gnode${this.selected === item.node.name ? ' selected' : ''}`, 'data-node-name': item.node.name, 'data-op': item.node.op },
          s('rect', { x, y, width: n.width, height: n.height, rx: 13, style: fill ? `fill:${withAlpha(fill, 0.35)};stroke:${fill}` : undefined }),
          s('text', { x: n.x, y: n.y + 4, 'text-anchor': 'middle', text: clip(item.label, n.width / 7) }),
          s('title', { text: `${item.node.name}\n${item.node.op}${item.node.device ? `\n${item.node.device}` : ''}` }));
        el.addEventListener('click', (e) => { e.stopPropagation(); this.selected = item.node.name; this.markSelected(); this.showDetails(item.node); });
      } else {
        const attrs = item.kind === 'scope' ? { 'data-scope-name': item.path } : { 'data-group-id': item.id };
        el = s('g', { class: `gbox ${item.kind}`, 'data-expanded': 'false', ...attrs },
          s('rect', { x, y, width: n.width, height: n.height, rx: 4, style: fill ? `fill:${withAlpha(fill, 0.35)};stroke:${fill}` : undefined }),
          s('text', { x: n.x, y: n.y - 3, 'text-anchor': 'middle', class: 'box-label', text: `▸ ${clip(item.label, n.width / 7.5 - 2)}` }),
          s('text', { x: n.x, y: n.y + 13, 'text-anchor': 'middle', class: 'box-count', text: `${item.count} node${item.count > 1 ? 's' : ''}` }),
          s('title', { text: `${item.kind === 'scope' ? item.path : item.label}: ${item.count} nodes (click to open)` }));
        el.addEventListener('click', (e) => { e.stopPropagation(); this.expand(item.id); });
      }
      const stubs = vis.stubs.get(item.id);
      if (stubs) {
        const names = [...stubs.keys()];
        const sx = x + n.width, sy = y + 6;
        const st = s('g', { class: 'stubs' }, s('title', { text: `edges to ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''}` }));
        names.slice(0, 4).forEach((_, i) => st.append(s('line', { x1: sx, y1: sy + i * 5, x2: sx + 8, y2: sy + i * 5 }), s('circle', { cx: sx + 10, cy: sy + i * 5, r: 2 })));
        el.append(st);
      }
      nodes.append(el);
    }
    this.viewport.replaceChildren(clusters, edges, nodes);
    const gr = g.graph();
    this.size = { width: gr.width || 100, height: gr.height || 100 };
    this.canvas.dataset.rendered = 'true';
  }

  expand(id) {
    const next = this.model.expand(this.expanded, id);
    if (!next) { this.notice.textContent = `Opening that box would lay out more than ${MAX_VISIBLE} items.`; return; }
    const closed = [...this.expanded].filter((x) => !next.has(x)).length;
    this.notice.textContent = closed ? `Closed ${closed} other box(es) to keep at most ${MAX_VISIBLE} items on screen.` : '';
    this.expanded = next;
    this.relayout(id);
  }

  collapse(id) {
    const next = new Set();
    for (const x of this.expanded) {
      let inside = false;
      for (let p = this.model.items.get(x); p; p = p.parent) if (p.id === id) { inside = true; break; }
      if (!inside) next.add(x);
    }
    this.expanded = next;
    this.notice.textContent = '';
    this.relayout(id);
  }

  showResults() {
    const names = this.model ? this.model.search(this.searchBox.value, 12) : [];
    this.results.replaceChildren(...names.map((n) => h('div.search-result', { 'data-result': n, text: n, onclick: () => this.goTo(n) })));
  }

  goTo(name) {
    const node = this.model.nodes.get(name);
    if (!node) return;
    this.selected = name;
    this.results.replaceChildren();
    if (this.model.extractedSet.has(name)) {
      const el = this.side.querySelector(`[data-node-name="${CSS.escape(name)}"]`);
      el?.scrollIntoView({ block: 'nearest' });
      el?.classList.add('selected');
      this.showDetails(node);
      return;
    }
    const next = this.model.expand(this.expanded, `n:${name}`);
    if (next) { this.expanded = next; this.relayout(); }
    this.markSelected();
    this.center(`n:${name}`);
    this.showDetails(node);
  }

  markSelected() {
    for (const el of this.root.querySelectorAll('.selected')) el.classList.remove('selected');
    if (!this.selected) return;
    for (const el of this.root.querySelectorAll(`[data-node-name="${CSS.escape(this.selected)}"]`)) el.classList.add('selected');
  }

  showDetails(n) {
    const rows = [['name', n.name], ['op', n.op], ['device', n.device || '(not placed)']];
    if (n.requested_device && n.requested_device !== n.device) rows.push(['requested device', n.requested_device]);
    const inputs = h('td');
    (n.inputs || []).forEach((inp, i) => {
      const target = inp.replace(/^\^/, '').replace(/:\d+$/, '');
      if (i) inputs.append(h('br'));
      inputs.append(h('a.input-link', { href: '#graph', 'data-input': target, text: inp, onclick: (e) => { e.preventDefault(); this.goTo(target); } }));
    });
    const table = h('table', {}, rows.map(([k, v]) => h('tr', {}, h('th', { text: k }), h('td', { text: v }))),
      h('tr', {}, h('th', { text: 'inputs' }), inputs),
      (n.attrs || []).map(([k, v]) => h('tr', {}, h('th', { text: `attr ${k}` }), h('td', { text: v }))),
      (n.outputs || []).map((o, i) => h('tr', {}, h('th', { text: `output ${i}` }), h('td', { text: o }))));
    this.details.replaceChildren(h('h4', { text: n.name }), table);
    this.details.dataset.node = n.name;
  }

  // ---- pan & zoom
  bindPanZoom() {
    this.svg.addEventListener('wheel', (e) => {
      if (!this.transform) return;
      e.preventDefault();
      const r = this.svg.getBoundingClientRect();
      const k = Math.min(4, Math.max(0.05, this.transform.k * Math.exp(-e.deltaY / 400)));
      const px = e.clientX - r.left, py = e.clientY - r.top;
      this.transform.x = px - ((px - this.transform.x) * k) / this.transform.k;
      this.transform.y = py - ((py - this.transform.y) * k) / this.transform.k;
      this.transform.k = k;
      this.applyTransform();
    }, { passive: false });
    let drag = null;
    this.svg.addEventListener('mousedown', (e) => { if (this.transform) drag = { x: e.clientX, y: e.clientY, tx: this.transform.x, ty: this.transform.y }; });
    window.addEventListener('mousemove', this.onMove = (e) => {
      if (!drag) return;
      this.transform.x = drag.tx + e.clientX - drag.x;
      this.transform.y = drag.ty + e.clientY - drag.y;
      this.applyTransform();
    });
    window.addEventListener('mouseup', this.onUp = () => { drag = null; });
    this.svg.addEventListener('dblclick', (e) => { if (e.target === this.svg) this.fit(); });
  }

  fit() {
    const r = this.canvas.getBoundingClientRect();
    const w = Math.max(200, r.width), hgt = Math.max(200, r.height);
    // Not smaller than 0.4: a tall graph starts readable at its top instead.
    const k = Math.max(0.4, Math.min(1, w / this.size.width, hgt / this.size.height));
    this.transform = { k, x: Math.max(10, (w - this.size.width * k) / 2), y: 10 };
    this.applyTransform();
  }

  // Pans (and zooms out if needed) the least so that box `b` is on screen.
  ensureVisible(b) {
    const r = this.canvas.getBoundingClientRect();
    const t = this.transform, pad = 12;
    t.k = Math.max(0.05, Math.min(t.k, (r.width - 2 * pad) / b.width, (r.height - 2 * pad) / b.height));
    const left = t.x + b.left * t.k, top = t.y + b.top * t.k;
    const right = left + b.width * t.k, bottom = top + b.height * t.k;
    if (left < pad) t.x += pad - left; else if (right > r.width - pad) t.x -= right - (r.width - pad);
    if (top < pad) t.y += pad - top; else if (bottom > r.height - pad) t.y -= bottom - (r.height - pad);
    this.applyTransform();
  }

  center(id) {
    const p = this.positions?.get(id);
    if (!p) return;
    const r = this.canvas.getBoundingClientRect();
    this.transform.k = Math.max(this.transform.k, 0.8);
    this.transform.x = r.width / 2 - p.x * this.transform.k;
    this.transform.y = r.height / 2 - p.y * this.transform.k;
    this.applyTransform();
  }

  applyTransform() {
    const t = this.transform;
    this.viewport.setAttribute('transform', `translate(${t.x},${t.y}) scale(${t.k})`);
  }

  destroy() {
    window.removeEventListener('mousemove', this.onMove);
    window.removeEventListener('mouseup', this.onUp);
    this.seq++;
  }
}

function graphDefs() {
  return s('defs', {},
    s('marker', { id: 'garrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' }, s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' })),
    s('marker', { id: 'garrow-c', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' }, s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head control' })));
}

function clip(text, chars) {
  const n = Math.max(3, Math.floor(chars));
  return text.length <= n ? text : `${text.slice(0, n - 1)}…`;
}
