// The graph as a tree of boxes, for drawing a 10,000-node GraphDef a few
// hundred items at a time. Pure; no DOM.
//
// - Name scopes (the "/"-separated prefixes of node names) become boxes.
// - A box with more than MAX_CHILDREN children gets them grouped: numbered
//   scopes (layer_0 … layer_49) into a series box, leaf nodes by op type,
//   then, if still too many, everything into numbered ranges,
//   so that expanding one box adds at most MAX_CHILDREN items.
// - High-degree nodes (degree > max(8, 4 x median degree), with edges to at
//   least MIN_SCOPES_REACHED other top-level scopes) are set aside:
//   they are not laid out; edges to them become stubs on the other end, as
//   TensorBoard does (paper section 9.1).
// - Given the set of expanded boxes, visible() returns what to lay out: the
//   leaves (collapsed boxes and nodes), the expanded boxes holding them, and
//   the edges between leaves, aggregated with counts (data and control apart).

export const MAX_CHILDREN = 60;
export const MAX_VISIBLE = 300;
export const MIN_SCOPES_REACHED = 3;
export const MIN_SERIES = 5;

export function tensorNode(input) {
  const control = input.startsWith('^');
  let name = control ? input.slice(1) : input;
  const colon = name.lastIndexOf(':');
  if (colon > 0 && /^\d+$/.test(name.slice(colon + 1))) name = name.slice(0, colon);
  return { name, control };
}

export function median(values) {
  if (!values.length) return 0;
  const a = [...values].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
}

export class GraphModel {
  constructor(nodes) {
    this.nodes = new Map();
    this.problems = [];
    for (const n of nodes) {
      if (this.nodes.has(n.name)) { this.problems.push(`duplicate node name '${n.name}'`); continue; }
      this.nodes.set(n.name, { ...n, degree: 0 });
    }
    this.edges = [];
    for (const n of this.nodes.values()) {
      for (const input of n.inputs || []) {
        const { name, control } = tensorNode(input);
        const src = this.nodes.get(name);
        if (!src) { this.problems.push(`node '${n.name}': input '${input}' names no node`); continue; }
        this.edges.push({ src: name, dst: n.name, control });
        src.degree++; n.degree++;
      }
    }
    this.devices = [...new Set([...this.nodes.values()].map((n) => n.device).filter(Boolean))].sort();
    this.medianDegree = median([...this.nodes.values()].map((n) => n.degree));
    this.degreeThreshold = Math.max(8, 4 * this.medianDegree);
    // Only nodes whose edges reach several other top-level scopes: a node
    // with many edges inside its own layer draws no long edges.
    const top = (name) => name.split('/')[0];
    const reach = new Map();
    for (const e of this.edges) {
      for (const [a, b] of [[e.src, e.dst], [e.dst, e.src]]) {
        if (top(a) === top(b)) continue;
        if (!reach.has(a)) reach.set(a, new Set());
        reach.get(a).add(top(b));
      }
    }
    this.extracted = [...this.nodes.values()].filter((n) => n.degree > this.degreeThreshold && (reach.get(n.name)?.size || 0) >= MIN_SCOPES_REACHED)
      .sort((a, b) => b.degree - a.degree || (a.name < b.name ? -1 : 1));
    this.extractedSet = new Set(this.extracted.map((n) => n.name));
    this.buildTree();
  }

  buildTree() {
    this.items = new Map();
    this.root = this.addItem({ id: 's:', kind: 'scope', label: '', path: '', parent: null });
    for (const n of this.nodes.values()) {
      if (this.extractedSet.has(n.name)) continue;
      const parts = n.name.split('/');
      let parent = this.root;
      for (let k = 1; k < parts.length; k++) {
        const p = parts.slice(0, k).join('/');
        const id = `s:${p}`;
        parent = this.items.get(id) || this.addItem({ id, kind: 'scope', label: parts[k - 1], path: p, parent });
      }
      this.addItem({ id: `n:${n.name}`, kind: 'node', label: parts[parts.length - 1], path: n.name, parent, node: n });
    }
    this.regroup(this.root, true);
    // Counts and devices below each box, and each node's chain of boxes.
    const visit = (item) => {
      if (item.kind === 'node') {
        item.count = 1;
        item.devices = new Map(item.node.device ? [[item.node.device, 1]] : []);
        return;
      }
      item.count = 0; item.devices = new Map();
      for (const c of item.children) {
        visit(c);
        item.count += c.count;
        for (const [d, k] of c.devices) item.devices.set(d, (item.devices.get(d) || 0) + k);
      }
    };
    visit(this.root);
    this.chains = new Map();
    for (const item of this.items.values()) {
      if (item.kind !== 'node') continue;
      const chain = [];
      for (let p = item; p && p !== this.root; p = p.parent) chain.push(p);
      this.chains.set(item.node.name, chain.reverse());
    }
  }

  addItem(item) {
    item.children = [];
    this.items.set(item.id, item);
    if (item.parent) item.parent.children.push(item);
    return item;
  }

  reparent(children, group) {
    for (const c of children) { c.parent = group; group.children.push(c); }
  }

  regroup(item, byOp) {
    for (const c of item.children) if (c.kind !== 'node') this.regroup(c, true);
    if (byOp) this.groupSeries(item);
    const kids = item.children;
    if (kids.length <= MAX_CHILDREN) return;
    let next = kids;
    if (byOp) {
      const byOpMap = new Map();
      next = [];
      for (const c of kids) {
        if (c.kind !== 'node') { next.push(c); continue; }
        const op = c.node.op || '?';
        if (!byOpMap.has(op)) byOpMap.set(op, []);
        byOpMap.get(op).push(c);
      }
      for (const [op, list] of [...byOpMap].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
        if (list.length === 1) { next.push(list[0]); continue; }
        const g = { id: `g:${item.id}|op:${op}`, kind: 'group', label: `${op} ×${list.length}`, path: `${item.path}/${op}*`, parent: item, children: [] };
        this.items.set(g.id, g);
        this.reparent(list, g);
        next.push(g);
        if (list.length > MAX_CHILDREN) this.rangeGroup(g);
      }
    }
    item.children = next;
    if (next.length > MAX_CHILDREN) this.rangeGroup(item);
  }

  // Numbered sibling scopes (layer_0 … layer_49), MIN_SERIES or more, become
  // one series box, as TensorBoard does.
  groupSeries(item) {
    const series = new Map();
    const rest = [];
    for (const c of item.children) {
      const m = c.kind === 'scope' ? /^(.*?\D)(\d+)$/.exec(c.label) : null;
      if (!m) { rest.push(c); continue; }
      if (!series.has(m[1])) series.set(m[1], []);
      series.get(m[1]).push(c);
    }
    for (const [prefix, list] of series) {
      if (list.length < MIN_SERIES) { rest.push(...list); continue; }
      list.sort((a, b) => Number(/\d+$/.exec(a.label)[0]) - Number(/\d+$/.exec(b.label)[0]));
      const num = (x) => /\d+$/.exec(x.label)[0];
      const g = { id: `g:${item.id}|series:${prefix}`, kind: 'group', label: `${prefix}[${num(list[0])}–${num(list[list.length - 1])}] ×${list.length}`,
        path: `${item.path ? `${item.path}/` : ''}${prefix}*`, parent: item, children: [] };
      this.items.set(g.id, g);
      this.reparent(list, g);
      rest.push(g);
      if (list.length > MAX_CHILDREN) this.rangeGroup(g);
    }
    item.children = rest;
  }

  // Splits item's children into at most MAX_CHILDREN numbered ranges (nested
  // again when one range is still too big).
  rangeGroup(item) {
    const kids = [...item.children].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const size = Math.max(MAX_CHILDREN, Math.ceil(kids.length / MAX_CHILDREN));
    item.children = [];
    for (let i = 0; i < kids.length; i += size) {
      const part = kids.slice(i, i + size);
      const g = { id: `g:${item.id}|r:${i}`, kind: 'group', label: `${part[0].label} … ${part[part.length - 1].label} (${part.length})`,
        path: `${item.path}#${i}`, parent: item, children: [] };
      this.items.set(g.id, g);
      this.reparent(part, g);
      item.children.push(g);
      if (part.length > MAX_CHILDREN) this.rangeGroup(g);
    }
  }

  // The item that stands for `nodeName` when `expanded` (a Set of box ids)
  // is open: its outermost collapsed box, else the node itself.
  repOf(nodeName, expanded) {
    const chain = this.chains.get(nodeName);
    if (!chain) return null;
    for (const item of chain) if (item.kind === 'node' || !expanded.has(item.id)) return item;
    return chain[chain.length - 1];
  }

  visible(expanded) {
    const leaves = [], clusters = [];
    const walk = (item) => {
      for (const c of item.children) {
        if (c.kind !== 'node' && expanded.has(c.id)) { clusters.push(c); walk(c); } else leaves.push(c);
      }
    };
    walk(this.root);
    const agg = new Map();
    const stubs = new Map(); // leaf id -> Map(extracted name -> count)
    const addStub = (leaf, name) => {
      if (!leaf) return;
      if (!stubs.has(leaf.id)) stubs.set(leaf.id, new Map());
      const m = stubs.get(leaf.id);
      m.set(name, (m.get(name) || 0) + 1);
    };
    for (const e of this.edges) {
      const sx = this.extractedSet.has(e.src), dx = this.extractedSet.has(e.dst);
      if (sx || dx) {
        if (!sx) addStub(this.repOf(e.src, expanded), e.dst);
        if (!dx) addStub(this.repOf(e.dst, expanded), e.src);
        continue;
      }
      const a = this.repOf(e.src, expanded), b = this.repOf(e.dst, expanded);
      if (!a || !b || a === b) continue;
      const key = `${a.id}\u0000${b.id}\u0000${e.control ? 'c' : 'd'}`;
      const cur = agg.get(key);
      if (cur) cur.count++; else agg.set(key, { from: a, to: b, control: e.control, count: 1 });
    }
    return { leaves, clusters, edges: [...agg.values()], stubs };
  }

  // Expanding `id` (and the boxes above it) must keep at most MAX_VISIBLE
  // leaves; boxes off that path are collapsed first when needed. Returns the
  // new expanded set, or null when even that is too many.
  expand(expanded, id) {
    const target = this.items.get(id);
    if (!target) return null;
    const path = [];
    for (let p = target; p && p !== this.root; p = p.parent) if (p.kind !== 'node') path.push(p.id);
    const next = new Set([...expanded, ...path]);
    if (this.visible(next).leaves.length <= MAX_VISIBLE) return next;
    const onlyPath = new Set(path);
    if (this.visible(onlyPath).leaves.length <= MAX_VISIBLE) return onlyPath;
    return null;
  }

  // Node names matching `query`: the exact one first, then substring matches.
  search(query, limit = 20) {
    const q = query.trim();
    if (!q) return [];
    const out = [];
    if (this.nodes.has(q)) out.push(q);
    const lower = q.toLowerCase();
    for (const name of this.nodes.keys()) {
      if (out.length >= limit) break;
      if (name !== q && name.toLowerCase().includes(lower)) out.push(name);
    }
    return out;
  }
}
