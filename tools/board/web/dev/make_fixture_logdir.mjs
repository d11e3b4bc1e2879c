#!/usr/bin/env node
// Writes a small log directory with everything the board shows, as real
// event files: `node make_fixture_logdir.mjs OUTDIR`.
//   OUTDIR/train  scalars loss, accuracy (300 steps), histogram weights/w1,
//                 image inputs/image/0, the graph (two tasks, name scopes,
//                 high-degree nodes) and a RunMetadata "step_100" with Send/Recv
//   OUTDIR/eval   scalar accuracy (30 points)
// Deterministic (no randomness, fixed wall times), so tests can rely on it.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { EventFileWriter, encodeGraphDef, encodeRunMetadata } from './tfevents.mjs';

const T0 = 1764150000;
const DEV0 = '/job:worker/replica:0/task:0/device:CPU:0';
const DEV1 = '/job:ps/replica:0/task:0/device:CPU:0';

const CRC32 = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) { let c = i; for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1; t[i] = c >>> 0; }
  return (buf) => { let c = 0xffffffff; for (const b of buf) c = t[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
})();

// An RGB PNG from a pixel function.
export function encodePng(width, height, pixel) {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), y * (width * 3 + 1) + 1 + 3 * x);
  }
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(CRC32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; ihdr[9] = 2; // 8-bit RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

// TensorFlow's bucket edges: +-1e-12 * 1.1^k up to 1e20, and 0.
function bucketLimits() {
  const pos = [];
  for (let v = 1e-12; v < 1e20; v *= 1.1) pos.push(v);
  return [...pos.map((v) => -v).reverse(), 0, ...pos, Number.MAX_VALUE];
}
const LIMITS = bucketLimits();

export function histogramOf(values) {
  const counts = new Array(LIMITS.length).fill(0);
  for (const v of values) {
    let lo = 0, hi = LIMITS.length - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (v <= LIMITS[mid]) hi = mid; else lo = mid + 1; }
    counts[lo]++;
  }
  const first = counts.findIndex((c) => c > 0);
  const last = counts.length - 1 - [...counts].reverse().findIndex((c) => c > 0);
  return {
    min: Math.min(...values), max: Math.max(...values), num: values.length,
    sum: values.reduce((a, b) => a + b, 0), sum_squares: values.reduce((a, b) => a + b * b, 0),
    bucket_limit: LIMITS.slice(first, last + 1), bucket: counts.slice(first, last + 1),
  };
}

export function fixtureGraph() {
  const nodes = [];
  const add = (name, op, inputs = [], device = DEV0, attrs = {}) => nodes.push({ name, op, inputs, device, attrs });
  add('global_step', 'VariableV2', [], DEV1, { dtype: { type: 9 }, shape: { shape: [] } });
  add('x', 'Placeholder', [], DEV0, { dtype: { type: 1 }, shape: { shape: [-1, 64] } });
  add('labels', 'Placeholder', [], DEV0, { dtype: { type: 3 }, shape: { shape: [-1] } });
  let prev = 'x';
  for (let l = 1; l <= 3; l++) {
    const s = `layer${l}`;
    add(`${s}/w`, 'VariableV2', [], DEV1, { dtype: { type: 1 }, shape: { shape: [64, 64] } });
    add(`${s}/w/read`, 'Identity', [`${s}/w`], DEV1, { T: { type: 1 } });
    add(`${s}/b`, 'VariableV2', [], DEV1, { dtype: { type: 1 }, shape: { shape: [64] } });
    add(`${s}/b/read`, 'Identity', [`${s}/b`], DEV1, { T: { type: 1 } });
    add(`${s}/MatMul`, 'MatMul', [prev, `${s}/w/read`], DEV0, { T: { type: 1 }, transpose_a: { b: false } });
    add(`${s}/add`, 'AddV2', [`${s}/MatMul`, `${s}/b/read`], DEV0, { T: { type: 1 } });
    add(`${s}/Relu`, 'Relu', [`${s}/add`], DEV0, { T: { type: 1 } });
    prev = `${s}/Relu`;
  }
  add('loss/xent', 'SparseSoftmaxCrossEntropyWithLogits', [prev, 'labels'], DEV0, { T: { type: 1 } });
  add('loss/Const', 'Const', [], DEV0, { dtype: { type: 3 } });
  add('loss/Mean', 'Mean', ['loss/xent', 'loss/Const'], DEV0, { T: { type: 1 } });
  add('train/lr', 'Const', [], DEV0, { dtype: { type: 1 } });
  const updates = [];
  for (let l = 1; l <= 3; l++) {
    for (const v of ['w', 'b']) {
      const n = `train/update_layer${l}_${v}/ApplyGradientDescent`;
      add(n, 'ApplyGradientDescent', [`layer${l}/${v}`, 'train/lr', 'loss/Mean'], DEV1, { T: { type: 1 } });
      updates.push(`^${n}`);
    }
  }
  add('train/step', 'AssignAdd', ['global_step', 'train/lr', ...updates], DEV1, { T: { type: 9 } });
  const inits = [];
  for (let l = 1; l <= 3; l++) {
    for (const v of ['w', 'b']) {
      add(`layer${l}/${v}/Assign`, 'Assign', [`layer${l}/${v}`, 'train/lr'], DEV1, { T: { type: 1 } });
      inits.push(`^layer${l}/${v}/Assign`);
    }
  }
  add('init', 'NoOp', [...inits, '^global_step'], DEV0);
  return nodes;
}

function fixtureRunMetadata() {
  const label = (node, op, inputs, transfer) =>
    `${node} = ${op}(${inputs.join(', ')})${transfer ? ` ${transfer} from ${DEV1} to ${DEV0}` : ''}`;
  const t = 1764150000000000;
  const ps = [], worker = [];
  let clock = t;
  for (let l = 1; l <= 3; l++) {
    const tensor = `layer${l}/w/read:0`;
    ps.push({ name: `layer${l}/w/read`, start_us: clock, end_us: clock + 20, label: label(`layer${l}/w/read`, 'Identity', [`layer${l}/w`]), thread: 0 });
    ps.push({ name: `layer${l}/w/read/_send`, start_us: clock + 25, end_us: clock + 40, label: label(`layer${l}/w/read/_send`, '_Send', [`layer${l}/w/read`], tensor), thread: 0 });
    worker.push({ name: `layer${l}/w/read/_recv`, start_us: clock + 10, end_us: clock + 60, label: label(`layer${l}/w/read/_recv`, '_Recv', [], tensor), thread: 1 });
    worker.push({ name: `layer${l}/MatMul`, start_us: clock + 65, end_us: clock + 180, label: label(`layer${l}/MatMul`, 'MatMul', [l === 1 ? 'x' : `layer${l - 1}/Relu`, `layer${l}/w/read/_recv`]), thread: l % 2 });
    worker.push({ name: `layer${l}/Relu`, start_us: clock + 185, end_us: clock + 200, label: label(`layer${l}/Relu`, 'Relu', [`layer${l}/add`]), thread: 0 });
    clock += 210;
  }
  return encodeRunMetadata([
    { device: DEV0, nodes: worker, thread_names: { 0: 'executor 0', 1: 'executor 1' } },
    { device: DEV1, nodes: ps },
  ]);
}

export function writeFixtureLogdir(out) {
  fs.mkdirSync(out, { recursive: true });
  const train = new EventFileWriter(path.join(out, 'train'), { wallTime: T0 });
  train.add({ wall_time: T0, step: 0, graph_def: encodeGraphDef(fixtureGraph()) });
  for (let step = 0; step < 300; step++) {
    const wall = T0 + 1 + step * 0.1;
    train.add({ wall_time: wall, step, summary: [
      { tag: 'loss', simple_value: 2.3 * Math.exp(-step / 80) + 0.1 + 0.05 * Math.sin(step) },
      { tag: 'accuracy', simple_value: 1 - Math.exp(-step / 60) },
    ] });
    if (step % 10 === 0) {
      const values = [];
      for (let i = 0; i < 500; i++) values.push(Math.sin(i * 12.9898 + step) * (0.5 + step / 300) + Math.cos(i) * 0.1);
      train.add({ wall_time: wall, step, summary: [{ tag: 'weights/w1', histo: histogramOf(values) }] });
    }
    if (step % 50 === 0) {
      const png = encodePng(16, 16, (x, y) => [(x * 16 + step) & 255, (y * 16) & 255, (step * 2) & 255]);
      train.add({ wall_time: wall, step, summary: [{ tag: 'inputs/image/0', image: { height: 16, width: 16, colorspace: 3, png } }] });
    }
    if (step === 100) train.add({ wall_time: wall, step, tagged_run_metadata: { tag: 'step_100', run_metadata: fixtureRunMetadata() } });
  }
  train.close();
  const evalRun = new EventFileWriter(path.join(out, 'eval'), { wallTime: T0 + 2 });
  for (let i = 0; i < 30; i++) {
    evalRun.add({ wall_time: T0 + 2 + i, step: i * 10, summary: [{ tag: 'accuracy', simple_value: 0.9 * (1 - Math.exp(-i / 6)) }] });
  }
  evalRun.close();
  // A run folder whose name holds a comma and '=' (hyperparameters in the
  // name), whose last value is non-finite (sent as null).
  const hp = new EventFileWriter(path.join(out, 'lr=0.1,bs=32'), { wallTime: T0 + 3 });
  for (let i = 0; i < 20; i++) {
    hp.add({ wall_time: T0 + 3 + i, step: i * 10, summary: [{ tag: 'loss', simple_value: i === 19 ? Infinity : 2 * Math.exp(-i / 5) }] });
  }
  hp.close();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  if (!out) { console.error('usage: make_fixture_logdir.mjs OUTDIR'); process.exit(2); }
  writeFixtureLogdir(out);
  console.log(`wrote ${out}/train, ${out}/eval and ${out}/lr=0.1,bs=32`);
}
