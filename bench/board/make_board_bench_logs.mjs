#!/usr/bin/env node
// Writes the board benchmark's inputs: `node bench/board/make_board_bench_logs.mjs OUTDIR`
//   OUTDIR/logs/run_000 … run_099   one event file each, tag "loss", 10,000 steps
//   OUTDIR/graph.pbtxt              a 10,000-node GraphDef: 50 layers of ~200
//                                   nodes in nested name scopes, plus shared
//                                   constants, global_step and an init NoOp
//                                   with a control input from every Assign
// Real event files: TFRecord framing with masked CRC32C around Event protos
// encoded by hand (field numbers in shared/spec/formats.md). Deterministic.

import fs from 'node:fs';
import path from 'node:path';
import { frameRecord, encodeEvent, graphToPbtxt } from '../../tools/board/web/dev/tfevents.mjs';

const RUNS = 100, POINTS = 10000, LAYERS = 50;

// Event{wall_time=1, step=2, summary=5{value=1{tag=1, simple_value=2}}}, the
// hot path written directly into a buffer (encodeEvent does the same, slower).
function scalarEvent(wall, step, tag, value) {
  const tagBytes = Buffer.from(tag, 'utf8');
  const valueLen = 2 + tagBytes.length + 5;
  const summaryLen = 2 + valueLen;
  const stepBytes = [];
  for (let s = step; ; ) { let b = s & 0x7f; s = Math.floor(s / 128); if (s) b |= 0x80; stepBytes.push(b); if (!s) break; }
  const buf = Buffer.alloc(9 + (step ? 1 + stepBytes.length : 0) + 2 + summaryLen);
  let o = 0;
  buf[o++] = 0x09; buf.writeDoubleLE(wall, o); o += 8;
  if (step) { buf[o++] = 0x10; for (const b of stepBytes) buf[o++] = b; }
  buf[o++] = 0x2a; buf[o++] = summaryLen;
  buf[o++] = 0x0a; buf[o++] = valueLen;
  buf[o++] = 0x0a; buf[o++] = tagBytes.length; tagBytes.copy(buf, o); o += tagBytes.length;
  buf[o++] = 0x15; buf.writeFloatLE(value, o); o += 4;
  return buf;
}

function writeRuns(dir) {
  const t0 = 1764150000;
  for (let r = 0; r < RUNS; r++) {
    const name = `run_${String(r).padStart(3, '0')}`;
    const runDir = path.join(dir, name);
    fs.mkdirSync(runDir, { recursive: true });
    const chunks = [frameRecord(encodeEvent({ wall_time: t0 + r, file_version: 'brain.Event:2' }))];
    const rate = 300 + 40 * (r % 10), floor = 0.05 + 0.002 * r;
    for (let step = 0; step < POINTS; step++) {
      const v = 2.3 * Math.exp(-step / rate) + floor + 0.03 * Math.sin(step * 0.37 + r);
      chunks.push(frameRecord(scalarEvent(t0 + r + step * 0.05, step, 'loss', v)));
    }
    fs.writeFileSync(path.join(runDir, `events.out.tfevents.${t0 + r}.bench`), Buffer.concat(chunks));
  }
}

function graphNodes() {
  const nodes = [];
  const add = (name, op, inputs = [], attrs = {}) => nodes.push({ name, op, inputs, attrs, device: '' });
  const f32 = { type: 1 };
  add('global_step', 'VariableV2', [], { dtype: { type: 9 }, shape: { shape: [] } });
  add('learning_rate', 'Const', [], { dtype: f32 });
  add('epsilon', 'Const', [], { dtype: f32 });
  add('input/x', 'Placeholder', [], { dtype: f32, shape: { shape: [-1, 256] } });
  add('input/labels', 'Placeholder', [], { dtype: { type: 3 }, shape: { shape: [-1] } });
  const assigns = [];
  let prev = 'input/x';
  for (let l = 0; l < LAYERS; l++) {
    const L = `layer_${String(l).padStart(2, '0')}`;
    const vars = [];
    for (const v of ['w_q', 'w_k', 'w_v', 'w_o', 'w_up', 'w_down', 'gamma', 'beta']) {
      add(`${L}/${v}`, 'VariableV2', [], { dtype: f32, shape: { shape: [256, 256] } });
      add(`${L}/${v}/read`, 'Identity', [`${L}/${v}`], { T: f32 });
      add(`${L}/${v}/Assign`, 'Assign', [`${L}/${v}`, `${L}/${v}/Initializer/random_uniform`], { T: f32 });
      add(`${L}/${v}/Initializer/random_uniform`, 'RandomUniform', [`${L}/${v}/Initializer/shape`], { dtype: f32 });
      add(`${L}/${v}/Initializer/shape`, 'Const', [], { dtype: { type: 3 } });
      assigns.push(`^${L}/${v}/Assign`);
      for (const slot of ['Adam', 'Adam_1']) { // optimizer slots
        add(`${L}/${v}/${slot}`, 'VariableV2', [], { dtype: f32, shape: { shape: [256, 256] } });
        add(`${L}/${v}/${slot}/Assign`, 'Assign', [`${L}/${v}/${slot}`, `${L}/${v}/Initializer/shape`], { T: f32 });
        assigns.push(`^${L}/${v}/${slot}/Assign`);
      }
      vars.push(v);
    }
    // attention: 3 projections, scores, softmax, output (~40 nodes)
    for (const p of ['q', 'k', 'v']) {
      add(`${L}/attention/${p}/MatMul`, 'MatMul', [prev, `${L}/w_${p}/read`], { T: f32 });
      add(`${L}/attention/${p}/Reshape/shape`, 'Const', [], { dtype: { type: 3 } });
      add(`${L}/attention/${p}/Reshape`, 'Reshape', [`${L}/attention/${p}/MatMul`, `${L}/attention/${p}/Reshape/shape`], { T: f32 });
      add(`${L}/attention/${p}/transpose/perm`, 'Const', [], { dtype: { type: 3 } });
      add(`${L}/attention/${p}/transpose`, 'Transpose', [`${L}/attention/${p}/Reshape`, `${L}/attention/${p}/transpose/perm`], { T: f32 });
    }
    add(`${L}/attention/scores`, 'BatchMatMulV2', [`${L}/attention/q/transpose`, `${L}/attention/k/transpose`], { T: f32, adj_y: { b: true } });
    add(`${L}/attention/scale`, 'Mul', [`${L}/attention/scores`, 'epsilon'], { T: f32 });
    add(`${L}/attention/softmax`, 'Softmax', [`${L}/attention/scale`], { T: f32 });
    add(`${L}/attention/context`, 'BatchMatMulV2', [`${L}/attention/softmax`, `${L}/attention/v/transpose`], { T: f32 });
    add(`${L}/attention/out`, 'MatMul', [`${L}/attention/context`, `${L}/w_o/read`], { T: f32 });
    add(`${L}/residual_1`, 'AddV2', [prev, `${L}/attention/out`], { T: f32 });
    // layer norm (~10)
    const ln = `${L}/layer_norm`;
    add(`${ln}/mean/axes`, 'Const', [], { dtype: { type: 3 } });
    add(`${ln}/mean`, 'Mean', [`${L}/residual_1`, `${ln}/mean/axes`], { T: f32 });
    add(`${ln}/sub`, 'Sub', [`${L}/residual_1`, `${ln}/mean`], { T: f32 });
    add(`${ln}/square`, 'Square', [`${ln}/sub`], { T: f32 });
    add(`${ln}/variance`, 'Mean', [`${ln}/square`, `${ln}/mean/axes`], { T: f32 });
    add(`${ln}/add_eps`, 'AddV2', [`${ln}/variance`, 'epsilon'], { T: f32 });
    add(`${ln}/rsqrt`, 'Rsqrt', [`${ln}/add_eps`], { T: f32 });
    add(`${ln}/normed`, 'Mul', [`${ln}/sub`, `${ln}/rsqrt`], { T: f32 });
    add(`${ln}/scaled`, 'Mul', [`${ln}/normed`, `${L}/gamma/read`], { T: f32 });
    add(`${ln}/out`, 'AddV2', [`${ln}/scaled`, `${L}/beta/read`], { T: f32 });
    // mlp (~6)
    add(`${L}/mlp/up`, 'MatMul', [`${ln}/out`, `${L}/w_up/read`], { T: f32 });
    add(`${L}/mlp/relu`, 'Relu', [`${L}/mlp/up`], { T: f32 });
    add(`${L}/mlp/down`, 'MatMul', [`${L}/mlp/relu`, `${L}/w_down/read`], { T: f32 });
    add(`${L}/output`, 'AddV2', [`${ln}/out`, `${L}/mlp/down`], { T: f32 });
    // gradients: ~12 per variable
    for (const v of vars) {
      const g = `gradients/${L}/${v}_grad`;
      add(`${g}/Shape`, 'Shape', [`${L}/${v}/read`], { T: f32 });
      add(`${g}/ones`, 'Fill', [`${g}/Shape`, 'epsilon'], { T: f32 });
      add(`${g}/MatMul`, 'MatMul', [`${L}/output`, `${g}/ones`], { T: f32, transpose_a: { b: true } });
      add(`${g}/MatMul_1`, 'MatMul', [`${g}/MatMul`, `${L}/${v}/read`], { T: f32 });
      add(`${g}/Sum`, 'Sum', [`${g}/MatMul_1`, `${ln}/mean/axes`], { T: f32 });
      add(`${g}/Reshape`, 'Reshape', [`${g}/Sum`, `${g}/Shape`], { T: f32 });
      add(`${g}/tuple/group_deps`, 'NoOp', [`^${g}/MatMul`, `^${g}/Reshape`]);
      add(`${g}/tuple/control_dependency`, 'Identity', [`${g}/MatMul`, `^${g}/tuple/group_deps`], { T: f32 });
      add(`${g}/tuple/control_dependency_1`, 'Identity', [`${g}/Reshape`, `^${g}/tuple/group_deps`], { T: f32 });
      add(`${g}/clip/Minimum`, 'Minimum', [`${g}/tuple/control_dependency`, 'epsilon'], { T: f32 });
      add(`${g}/clip/Maximum`, 'Maximum', [`${g}/clip/Minimum`, 'epsilon'], { T: f32 });
      add(`train/update_${L}/${v}/ApplyAdam`, 'ApplyGradientDescent', [`${L}/${v}`, 'learning_rate', `${g}/clip/Maximum`], { T: f32 });
    }
    prev = `${L}/output`;
  }
  add('loss/xent', 'SparseSoftmaxCrossEntropyWithLogits', [prev, 'input/labels'], { T: f32 });
  add('loss/Mean', 'Mean', ['loss/xent', 'layer_00/layer_norm/mean/axes'], { T: f32 });
  const updates = nodes.filter((n) => n.name.startsWith('train/update_')).map((n) => `^${n.name}`);
  add('train/step', 'AssignAdd', ['global_step', 'learning_rate', ...updates], { T: { type: 9 } });
  add('init', 'NoOp', assigns);
  return nodes;
}

const out = process.argv[2];
if (!out) { console.error('usage: make_board_bench_logs.mjs OUTDIR'); process.exit(2); }
fs.mkdirSync(out, { recursive: true });
const t = Date.now();
writeRuns(path.join(out, 'logs'));
const nodes = graphNodes();
fs.writeFileSync(path.join(out, 'graph.pbtxt'), graphToPbtxt(nodes));
console.log(`wrote ${RUNS} runs x ${POINTS} points to ${out}/logs and a ${nodes.length}-node graph to ${out}/graph.pbtxt in ${((Date.now() - t) / 1000).toFixed(1)} s`);
