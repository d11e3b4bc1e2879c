// Unit tests of the front end's pure modules (no browser):
//   node --test tools/board/web/test/
import test from 'node:test';
import assert from 'node:assert/strict';
import { smooth } from '../src/smoothing.js';
import { percentiles, rebin } from '../src/percentiles.js';
import { GraphModel, MAX_CHILDREN, MAX_VISIBLE, tensorNode } from '../src/graph_model.js';
import { parseTrace } from '../src/trace_model.js';

test('smoothing is debiased: the first value is kept, constants stay constant', () => {
  assert.deepEqual(smooth([3, 3, 3], 0.9), [3, 3, 3]);
  const s = smooth([1, 2, 3], 0.5);
  assert.equal(s[0], 1);
  assert.ok(Math.abs(s[1] - (0.5 * 0.5 * 1 + 0.5 * 2) / 0.75) < 1e-12);
  assert.deepEqual(smooth([1, null, 2], 0), [1, null, 2]);
  assert.equal(smooth([1, null, 2], 0.5)[1], null);
});

test('percentiles interpolate inside buckets and hit min and max', () => {
  const h = { min: 0, max: 10, bucket_limit: [5, 10], bucket: [50, 50] };
  const p = percentiles(h, [0, 5000, 2500, 10000]);
  assert.equal(p[0], 0);
  assert.equal(p[1], 5);
  assert.equal(p[2], 2.5);
  assert.equal(p[3], 10);
  assert.deepEqual(percentiles({ min: 1, max: 1, bucket_limit: [], bucket: [] }, [0, 5000]), [1, 1]);
  const r = rebin(h, 0, 10, 2);
  assert.deepEqual(r, [50, 50]);
});

test('tensor names: ports and control inputs', () => {
  assert.deepEqual(tensorNode('a/b:1'), { name: 'a/b', control: false });
  assert.deepEqual(tensorNode('^init'), { name: 'init', control: true });
});

function bigGraph(layers, perLayer) {
  const nodes = [{ name: 'lr', op: 'Const', inputs: [] }];
  let prev = 'x';
  nodes.push({ name: 'x', op: 'Placeholder', inputs: [] });
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < perLayer; i++) {
      const name = `layer_${l}/op_${i}`;
      nodes.push({ name, op: i % 2 ? 'Add' : 'MatMul', inputs: [prev, 'lr'] });
      prev = name;
    }
  }
  nodes.push({ name: 'init', op: 'NoOp', inputs: nodes.filter((n) => n.op === 'MatMul').map((n) => `^${n.name}`) });
  return nodes;
}

test('graph model: scopes, series, grouping, extraction and bounded expansion', () => {
  const m = new GraphModel(bigGraph(50, 200));
  assert.equal(m.nodes.size, 10003);
  // lr and init touch every layer: set aside.
  assert.deepEqual(m.extracted.map((n) => n.name).sort(), ['init', 'lr']);
  let expanded = new Set();
  let vis = m.visible(expanded);
  assert.ok(vis.leaves.length <= MAX_CHILDREN, `${vis.leaves.length} top-level items`);
  const series = vis.leaves.find((x) => x.kind === 'group' && x.label.startsWith('layer_'));
  assert.ok(series, 'layer_0 … layer_49 form a series box');
  // Open everything on the way to one deep node; never more than MAX_VISIBLE.
  expanded = m.expand(expanded, 'n:layer_7/op_150');
  vis = m.visible(expanded);
  assert.ok(vis.leaves.some((x) => x.id === 'n:layer_7/op_150'));
  assert.ok(vis.leaves.length <= MAX_VISIBLE);
  for (const item of m.items.values()) assert.ok(item.children.length <= MAX_CHILDREN, `${item.id} has ${item.children.length} children`);
  // Edges between visible items are aggregated, stubs stand for lr / init.
  assert.ok(vis.edges.every((e) => e.from !== e.to));
  assert.ok(vis.stubs.size > 0);
  assert.equal(m.repOf('layer_3/op_1', expanded).id, m.chains.get('layer_3/op_1').find((x) => !expanded.has(x.id)).id);
  assert.deepEqual(m.search('layer_7/op_150', 3)[0], 'layer_7/op_150');
});

test('graph model: unknown inputs are reported, not fatal', () => {
  const m = new GraphModel([{ name: 'a', op: 'Add', inputs: ['missing:0'] }, { name: 'a', op: 'Add', inputs: [] }]);
  assert.equal(m.problems.length, 2);
  assert.equal(m.visible(new Set()).leaves.length, 1);
});

test('trace model: lanes, nesting and Send->Recv flows bound to slices', () => {
  const t = parseTrace({ traceEvents: [
    { ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: '/job:w/replica:0/task:0/device:CPU:0' } },
    { ph: 'M', name: 'process_name', pid: 2, tid: 0, args: { name: '/job:ps/replica:0/task:0/device:CPU:0' } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: 'executor 0' } },
    { ph: 'X', name: 'a/_send', pid: 2, tid: 1, ts: 0, dur: 10, args: { op: '_Send' } },
    { ph: 'X', name: 'a/_recv', pid: 1, tid: 1, ts: 2, dur: 20, args: { op: '_Recv' } },
    { ph: 'X', name: 'inner', pid: 1, tid: 1, ts: 5, dur: 2, args: { op: 'X' } },
    { ph: 's', name: 'a:0', cat: 'transfer', id: 1, pid: 2, tid: 1, ts: 5 },
    { ph: 'f', bp: 'e', name: 'a:0', cat: 'transfer', id: 1, pid: 1, tid: 1, ts: 21 },
  ] });
  assert.equal(t.lanes.length, 2);
  assert.equal(t.lanes[0].thread, 'executor 0');
  assert.equal(t.lanes[0].depth, 2);
  assert.equal(t.flows.length, 1);
  assert.equal(t.flows[0].from.name, 'a/_send');
  assert.equal(t.flows[0].to.name, 'a/_recv');
  assert.deepEqual(parseTrace(null).lanes, []);
});
