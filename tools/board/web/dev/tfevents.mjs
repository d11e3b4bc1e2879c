// Event files in plain JS, for the board's mock server, its browser test and
// its benchmark: TFRecord framing with masked CRC32C, and just enough
// protobuf (wire format only, no schema library) to read and write the Event,
// Summary, GraphDef and RunMetadata fields the board shows. Field numbers are
// TensorFlow's (shared/spec/formats.md, shared/spec/graphdef.md).
//
// Reading never throws on a torn or corrupt tail: readRecords() stops at the
// first incomplete or bad record and says so in `torn`, as the real readers do.

import fs from 'node:fs';
import path from 'node:path';

// ---------------------------------------------------------------- CRC32C

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export function crc32c(buf) {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function maskedCrc32c(buf) {
  const c = crc32c(buf);
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

// ---------------------------------------------------------------- TFRecord

export function frameRecord(data) {
  const out = Buffer.alloc(12 + data.length + 4);
  out.writeBigUInt64LE(BigInt(data.length), 0);
  out.writeUInt32LE(maskedCrc32c(out.subarray(0, 8)), 8);
  Buffer.from(data).copy(out, 12);
  out.writeUInt32LE(maskedCrc32c(data), 12 + data.length);
  return out;
}

// Returns {records: [Buffer], torn: null | "why", end: bytes consumed}.
export function readRecords(buf) {
  const records = [];
  let off = 0;
  while (off < buf.length) {
    if (buf.length - off < 12) return { records, torn: `short header at byte ${off}`, end: off };
    const len = buf.readBigUInt64LE(off);
    if (buf.readUInt32LE(off + 8) !== maskedCrc32c(buf.subarray(off, off + 8)))
      return { records, torn: `bad length CRC at byte ${off}`, end: off };
    if (len > BigInt(buf.length - off - 16)) return { records, torn: `short record at byte ${off}`, end: off };
    const n = Number(len);
    const data = buf.subarray(off + 12, off + 12 + n);
    if (buf.readUInt32LE(off + 12 + n) !== maskedCrc32c(data))
      return { records, torn: `bad data CRC at byte ${off}`, end: off };
    records.push(data);
    off += 16 + n;
  }
  return { records, torn: null, end: off };
}

// ---------------------------------------------------------------- protobuf wire format

// Decodes one message into [{field, wire, value}] (value: Number for varints,
// Buffer for length-delimited and fixed fields). Throws on malformed input;
// callers that read untrusted files catch it.
export function decodeFields(buf) {
  const out = [];
  let off = 0;
  const varint = () => {
    let result = 0n, shift = 0n;
    for (;;) {
      if (off >= buf.length) throw new Error('truncated varint');
      const b = buf[off++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
      shift += 7n;
      if (shift > 70n) throw new Error('varint too long');
    }
    return result;
  };
  while (off < buf.length) {
    const key = Number(varint());
    const field = key >>> 3, wire = key & 7;
    let value;
    if (wire === 0) value = Number(BigInt.asIntN(64, varint()));
    else if (wire === 1) { if (off + 8 > buf.length) throw new Error('truncated fixed64'); value = buf.subarray(off, off + 8); off += 8; }
    else if (wire === 5) { if (off + 4 > buf.length) throw new Error('truncated fixed32'); value = buf.subarray(off, off + 4); off += 4; }
    else if (wire === 2) {
      const n = Number(varint());
      if (off + n > buf.length) throw new Error('truncated bytes');
      value = buf.subarray(off, off + n); off += n;
    } else throw new Error(`unsupported wire type ${wire}`);
    out.push({ field, wire, value });
  }
  return out;
}

function packedDoubles(f) {
  if (f.wire === 1) return [f.value.readDoubleLE(0)];
  const out = [];
  for (let i = 0; i + 8 <= f.value.length; i += 8) out.push(f.value.readDoubleLE(i));
  return out;
}

export class Writer {
  constructor() { this.parts = []; }
  varintRaw(v) {
    let x = BigInt.asUintN(64, BigInt(v));
    const bytes = [];
    do { let b = Number(x & 0x7fn); x >>= 7n; if (x) b |= 0x80; bytes.push(b); } while (x);
    this.parts.push(Buffer.from(bytes));
    return this;
  }
  key(field, wire) { return this.varintRaw((field << 3) | wire); }
  varint(field, v) { return this.key(field, 0).varintRaw(v); }
  double(field, v) { const b = Buffer.alloc(8); b.writeDoubleLE(v); this.key(field, 1); this.parts.push(b); return this; }
  float(field, v) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.key(field, 5); this.parts.push(b); return this; }
  bytes(field, data) {
    const b = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    this.key(field, 2).varintRaw(b.length); this.parts.push(b); return this;
  }
  message(field, w) { return this.bytes(field, w.finish()); }
  packedDoubles(field, values) {
    const b = Buffer.alloc(8 * values.length);
    values.forEach((v, i) => b.writeDoubleLE(v, 8 * i));
    return this.bytes(field, b);
  }
  finish() { return Buffer.concat(this.parts); }
}

// ---------------------------------------------------------------- Event reading

function decodeHistogram(buf) {
  const h = { min: 0, max: 0, num: 0, sum: 0, sum_squares: 0, bucket_limit: [], bucket: [] };
  for (const f of decodeFields(buf)) {
    if (f.field >= 1 && f.field <= 5 && f.wire === 1) {
      h[['', 'min', 'max', 'num', 'sum', 'sum_squares'][f.field]] = f.value.readDoubleLE(0);
    } else if (f.field === 6) h.bucket_limit.push(...packedDoubles(f));
    else if (f.field === 7) h.bucket.push(...packedDoubles(f));
  }
  return h;
}

function decodeImage(buf) {
  const img = { height: 0, width: 0, colorspace: 0, png: Buffer.alloc(0) };
  for (const f of decodeFields(buf)) {
    if (f.field === 1 && f.wire === 0) img.height = f.value;
    else if (f.field === 2 && f.wire === 0) img.width = f.value;
    else if (f.field === 3 && f.wire === 0) img.colorspace = f.value;
    else if (f.field === 4 && f.wire === 2) img.png = Buffer.from(f.value);
  }
  return img;
}

function decodeSummaryValue(buf) {
  const v = { tag: '' };
  for (const f of decodeFields(buf)) {
    if (f.field === 1 && f.wire === 2) v.tag = f.value.toString('utf8');
    else if (f.field === 2 && f.wire === 5) v.simple_value = f.value.readFloatLE(0);
    else if (f.field === 4 && f.wire === 2) v.image = decodeImage(f.value);
    else if (f.field === 5 && f.wire === 2) v.histo = decodeHistogram(f.value);
  }
  return v;
}

// One Event: {wall_time, step, file_version?, graph_def?: Buffer,
// summary?: [value], tagged_run_metadata?: {tag, run_metadata: Buffer}}.
export function decodeEvent(buf) {
  const e = { wall_time: 0, step: 0 };
  for (const f of decodeFields(buf)) {
    if (f.field === 1 && f.wire === 1) e.wall_time = f.value.readDoubleLE(0);
    else if (f.field === 2 && f.wire === 0) e.step = f.value;
    else if (f.field === 3 && f.wire === 2) e.file_version = f.value.toString('utf8');
    else if (f.field === 4 && f.wire === 2) e.graph_def = Buffer.from(f.value);
    else if (f.field === 5 && f.wire === 2)
      e.summary = decodeFields(f.value).filter((v) => v.field === 1 && v.wire === 2).map((v) => decodeSummaryValue(v.value));
    else if (f.field === 8 && f.wire === 2) {
      const t = { tag: '', run_metadata: Buffer.alloc(0) };
      for (const g of decodeFields(f.value)) {
        if (g.field === 1 && g.wire === 2) t.tag = g.value.toString('utf8');
        else if (g.field === 2 && g.wire === 2) t.run_metadata = Buffer.from(g.value);
      }
      e.tagged_run_metadata = t;
    }
  }
  return e;
}

export function isEventFile(name) { return name.startsWith('events.out.tfevents.'); }

// Runs under `logdir`: every folder (the logdir itself is ".") holding event
// files, with those files in name order. Symlinks are not followed.
export function findRuns(logdir) {
  const runs = [];
  const walk = (dir, rel, depth) => {
    let entries;
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    const files = entries.filter((d) => d.isFile() && isEventFile(d.name)).map((d) => d.name).sort();
    if (files.length) runs.push({ name: rel || '.', files: files.map((f) => path.join(dir, f)) });
    if (depth > 8) return;
    for (const d of entries) if (d.isDirectory()) walk(path.join(dir, d.name), rel ? `${rel}/${d.name}` : d.name, depth + 1);
  };
  walk(logdir, '', 0);
  return runs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// All events of a run's files, in file order; a torn tail ends that file.
export function readRunEvents(files) {
  const events = [];
  const problems = [];
  for (const file of files) {
    const { records, torn } = readRecords(fs.readFileSync(file));
    if (torn) problems.push(`${file}: ${torn}`);
    for (const r of records) {
      try { events.push(decodeEvent(r)); } catch (err) { problems.push(`${file}: ${err.message}`); }
    }
  }
  return { events, problems };
}

// ---------------------------------------------------------------- Event writing

export function encodeEvent({ wall_time, step = 0, file_version, graph_def, summary, tagged_run_metadata }) {
  const w = new Writer().double(1, wall_time);
  if (step) w.varint(2, step);
  if (file_version !== undefined) w.bytes(3, file_version);
  if (graph_def !== undefined) w.bytes(4, graph_def);
  if (summary !== undefined) {
    const s = new Writer();
    for (const v of summary) {
      const vw = new Writer().bytes(1, v.tag);
      if (v.simple_value !== undefined) vw.float(2, v.simple_value);
      if (v.image) {
        vw.message(4, new Writer().varint(1, v.image.height).varint(2, v.image.width)
          .varint(3, v.image.colorspace).bytes(4, v.image.png));
      }
      if (v.histo) {
        const h = v.histo;
        vw.message(5, new Writer().double(1, h.min).double(2, h.max).double(3, h.num).double(4, h.sum)
          .double(5, h.sum_squares).packedDoubles(6, h.bucket_limit).packedDoubles(7, h.bucket));
      }
      s.message(1, vw);
    }
    w.message(5, s);
  }
  if (tagged_run_metadata) w.message(8, new Writer().bytes(1, tagged_run_metadata.tag).bytes(2, tagged_run_metadata.run_metadata));
  return w.finish();
}

// Appends events to an event file (created with its file_version event first).
export class EventFileWriter {
  constructor(dir, { wallTime = Date.now() / 1000, host = 'localhost' } = {}) {
    fs.mkdirSync(dir, { recursive: true });
    this.path = path.join(dir, `events.out.tfevents.${Math.floor(wallTime)}.${host}`);
    this.chunks = [frameRecord(encodeEvent({ wall_time: wallTime, file_version: 'brain.Event:2' }))];
  }
  add(event) { this.chunks.push(frameRecord(encodeEvent(event))); }
  close() { fs.writeFileSync(this.path, Buffer.concat(this.chunks)); this.chunks = []; }
}

// ---------------------------------------------------------------- GraphDef

// nodes: [{name, op, inputs: [..], device, attrs: {key: AttrValue-ish}}] where
// an attr is {s}, {i}, {f}, {b}, {type}, or {shape: [dims]}.
export function encodeGraphDef(nodes) {
  const g = new Writer();
  for (const n of nodes) {
    const nw = new Writer().bytes(1, n.name).bytes(2, n.op);
    for (const i of n.inputs || []) nw.bytes(3, i);
    if (n.device) nw.bytes(4, n.device);
    for (const [k, a] of Object.entries(n.attrs || {})) nw.message(5, new Writer().bytes(1, k).message(2, encodeAttr(a)));
    g.message(1, nw);
  }
  g.message(4, new Writer().varint(1, 27));
  return g.finish();
}

function encodeShape(dims) {
  const s = new Writer();
  for (const d of dims) s.message(2, new Writer().varint(1, d));
  return s;
}

function encodeAttr(a) {
  const w = new Writer();
  if ('s' in a) w.bytes(2, a.s);
  else if ('i' in a) w.varint(3, a.i);
  else if ('f' in a) w.float(4, a.f);
  else if ('b' in a) w.varint(5, a.b ? 1 : 0);
  else if ('type' in a) w.varint(6, a.type);
  else if ('shape' in a) w.message(7, encodeShape(a.shape));
  return w;
}

const DTYPES = ['invalid', 'float', 'double', 'int32', 'uint8', 'int16', 'int8', 'string', 'complex64', 'int64',
  'bool', 'qint8', 'quint8', 'qint32', 'bfloat16', 'qint16', 'quint16', 'uint16', 'complex128', 'half',
  'resource', 'variant', 'uint32', 'uint64'];

function shapeText(buf) {
  const dims = [];
  let unknown = false;
  for (const f of decodeFields(buf)) {
    if (f.field === 3 && f.wire === 0 && f.value) unknown = true;
    if (f.field === 2 && f.wire === 2) {
      let size = 0;
      for (const g of decodeFields(f.value)) if (g.field === 1 && g.wire === 0) size = g.value;
      dims.push(size < 0 ? '?' : String(size));
    }
  }
  return unknown ? '<unknown>' : `[${dims.join(',')}]`;
}

function attrText(buf) {
  for (const f of decodeFields(buf)) {
    switch (f.field) {
      case 2: return JSON.stringify(f.value.toString('utf8'));
      case 3: return String(f.value);
      case 4: return String(f.value.readFloatLE(0));
      case 5: return f.value ? 'true' : 'false';
      case 6: return DTYPES[f.value] || `type ${f.value}`;
      case 7: return shapeText(f.value);
      case 8: return '<tensor>';
      case 1: return '<list>';
      default: return '<value>';
    }
  }
  return '';
}

// A binary GraphDef as the board API's node objects (attrs as [key, text]).
export function decodeGraphDef(buf) {
  const nodes = [];
  for (const f of decodeFields(buf)) {
    if (f.field !== 1 || f.wire !== 2) continue;
    const n = { name: '', op: '', device: '', requested_device: '', inputs: [], attrs: [], outputs: [] };
    for (const g of decodeFields(f.value)) {
      if (g.wire !== 2) continue;
      if (g.field === 1) n.name = g.value.toString('utf8');
      else if (g.field === 2) n.op = g.value.toString('utf8');
      else if (g.field === 3) n.inputs.push(g.value.toString('utf8'));
      else if (g.field === 4) n.device = n.requested_device = g.value.toString('utf8');
      else if (g.field === 5) {
        let key = '', text = '';
        for (const h of decodeFields(g.value)) {
          if (h.field === 1 && h.wire === 2) key = h.value.toString('utf8');
          if (h.field === 2 && h.wire === 2) text = attrText(h.value);
        }
        n.attrs.push([key, text]);
      }
    }
    n.attrs.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    nodes.push(n);
  }
  return nodes;
}

// A GraphDef in text format, limited to what graph files usually hold:
// node { name op input device attr { key value { s|i|f|b|type|shape } } }.
export function parsePbtxtGraph(text) {
  const tokens = text.replace(/#[^\n]*/g, '').match(/"(?:[^"\\]|\\.)*"|[{}:]|[^\s{}:"]+/g) || [];
  let pos = 0;
  const parseBlock = () => {
    const obj = [];
    while (pos < tokens.length && tokens[pos] !== '}') {
      const key = tokens[pos++];
      if (tokens[pos] === ':') pos++;
      if (tokens[pos] === '{') { pos++; obj.push([key, parseBlock()]); pos++; }
      else {
        let v = tokens[pos++];
        if (v && v.startsWith('"')) v = JSON.parse(v.replace(/\\'/g, "'"));
        obj.push([key, v]);
      }
    }
    return obj;
  };
  const root = parseBlock();
  const valueText = (entries) => {
    for (const [k, v] of entries) {
      if (k === 's') return JSON.stringify(v);
      if (k === 'type') return String(v).replace(/^DT_/, '').toLowerCase();
      if (k === 'shape') {
        const dims = v.filter(([dk]) => dk === 'dim').map(([, d]) => (d.find(([x]) => x === 'size') || [0, '0'])[1]);
        return `[${dims.map((d) => (Number(d) < 0 ? '?' : d)).join(',')}]`;
      }
      return typeof v === 'string' ? v : `<${k}>`;
    }
    return '';
  };
  return root.filter(([k]) => k === 'node').map(([, entries]) => {
    const n = { name: '', op: '', device: '', requested_device: '', inputs: [], attrs: [], outputs: [] };
    for (const [k, v] of entries) {
      if (k === 'name') n.name = v;
      else if (k === 'op') n.op = v;
      else if (k === 'input') n.inputs.push(v);
      else if (k === 'device') n.device = n.requested_device = v;
      else if (k === 'attr') {
        const key = (v.find(([x]) => x === 'key') || [0, ''])[1];
        const val = v.find(([x]) => x === 'value');
        n.attrs.push([key, val ? valueText(val[1]) : '']);
      }
    }
    return n;
  });
}

export function graphToPbtxt(nodes) {
  const q = (s) => JSON.stringify(s);
  const lines = [];
  for (const n of nodes) {
    lines.push('node {', `  name: ${q(n.name)}`, `  op: ${q(n.op)}`);
    for (const i of n.inputs || []) lines.push(`  input: ${q(i)}`);
    if (n.device) lines.push(`  device: ${q(n.device)}`);
    for (const [k, a] of Object.entries(n.attrs || {})) {
      let v = '';
      if ('s' in a) v = `s: ${q(a.s)}`;
      else if ('i' in a) v = `i: ${a.i}`;
      else if ('f' in a) v = `f: ${a.f}`;
      else if ('b' in a) v = `b: ${a.b}`;
      else if ('type' in a) v = `type: DT_${DTYPES[a.type].toUpperCase()}`;
      else if ('shape' in a) v = `shape { ${a.shape.map((d) => `dim { size: ${d} }`).join(' ')} }`;
      lines.push(`  attr { key: ${q(k)} value { ${v} } }`);
    }
    lines.push('}');
  }
  lines.push('versions { producer: 27 }');
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------- RunMetadata

// devStats: [{device, nodes: [{name, start_us, end_us, label, thread}], thread_names?}]
export function encodeRunMetadata(devStats) {
  const ss = new Writer();
  for (const d of devStats) {
    const dw = new Writer().bytes(1, d.device);
    for (const n of d.nodes) {
      dw.message(2, new Writer().bytes(1, n.name).varint(2, n.start_us).varint(3, 0)
        .varint(4, n.end_us - n.start_us).varint(5, n.end_us - n.start_us)
        .bytes(8, n.label).varint(10, n.thread || 0));
    }
    for (const [tid, name] of Object.entries(d.thread_names || {}))
      dw.message(3, new Writer().varint(1, Number(tid)).bytes(2, name));
    ss.message(1, dw);
  }
  return new Writer().message(1, ss).finish();
}

function parseLabel(label) {
  const m = /^(.+?) = ([A-Za-z0-9_>]+)\(([^)]*)\)(?: (.+) from (\S+) to (\S+))?$/.exec(label || '');
  if (!m) return { op: 'unknown', inputs: [] };
  return {
    op: m[2], inputs: m[3] ? m[3].split(',').map((s) => s.trim()).filter(Boolean) : [],
    transfer: m[4] ? { tensor: m[4], from: m[5], to: m[6] } : null,
  };
}

// RunMetadata bytes -> Chrome trace JSON object, in the shape the real server
// sends (include/flowvm/trace.h): pids per device, tids per thread, X slices,
// s/f flow events from each _Send to its _Recv.
export function runMetadataToChromeTrace(buf) {
  const events = [];
  const slices = [];
  let pid = 0;
  for (const f of decodeFields(buf)) {
    if (f.field !== 1 || f.wire !== 2) continue;
    for (const d of decodeFields(f.value)) {
      if (d.field !== 1 || d.wire !== 2) continue;
      pid++;
      let device = `device ${pid - 1}`;
      const threads = new Map();
      const names = new Map();
      for (const g of decodeFields(d.value)) {
        if (g.field === 1 && g.wire === 2) device = g.value.toString('utf8');
        else if (g.field === 3 && g.wire === 2) {
          let k = 0, v = '';
          for (const h of decodeFields(g.value)) { if (h.field === 1) k = h.value; if (h.field === 2) v = h.value.toString('utf8'); }
          names.set(k, v);
        } else if (g.field === 2 && g.wire === 2) {
          const ns = { name: '', start: 0, opStart: 0, opEnd: 0, label: '', thread: 0 };
          for (const h of decodeFields(g.value)) {
            if (h.field === 1 && h.wire === 2) ns.name = h.value.toString('utf8');
            else if (h.field === 2 && h.wire === 0) ns.start = h.value;
            else if (h.field === 3 && h.wire === 0) ns.opStart = h.value;
            else if (h.field === 4 && h.wire === 0) ns.opEnd = h.value;
            else if (h.field === 8 && h.wire === 2) ns.label = h.value.toString('utf8');
            else if (h.field === 10 && h.wire === 0) ns.thread = h.value;
          }
          threads.set(ns.thread, true);
          slices.push({ ...ns, pid, tid: ns.thread + 1, ts: ns.start + ns.opStart, dur: Math.max(0, ns.opEnd - ns.opStart), parsed: parseLabel(ns.label) });
        }
      }
      events.push({ ph: 'M', name: 'process_name', pid, tid: 0, args: { name: device } });
      for (const t of threads.keys())
        events.push({ ph: 'M', name: 'thread_name', pid, tid: t + 1, args: { name: names.get(t) || `thread ${t}` } });
    }
  }
  const origin = slices.length ? Math.min(...slices.map((s) => s.ts)) : 0;
  for (const s of slices) {
    events.push({ ph: 'X', name: s.name, cat: s.parsed.op, pid: s.pid, tid: s.tid, ts: s.ts - origin, dur: s.dur,
      args: { op: s.parsed.op, inputs: s.parsed.inputs, timeline_label: s.label } });
  }
  const ends = new Map();
  for (const s of slices) {
    const t = s.parsed.transfer;
    if (!t) continue;
    const key = `${t.tensor}|${t.from}|${t.to}`;
    if (!ends.has(key)) ends.set(key, { sends: [], recvs: [] });
    if (/Send$/.test(s.parsed.op)) ends.get(key).sends.push(s);
    if (/Recv$/.test(s.parsed.op)) ends.get(key).recvs.push(s);
  }
  let id = 1;
  for (const [key, { sends, recvs }] of ends) {
    sends.sort((a, b) => a.ts - b.ts); recvs.sort((a, b) => a.ts - b.ts);
    for (let i = 0; i < Math.min(sends.length, recvs.length); i++, id++) {
      const s = sends[i], r = recvs[i];
      const name = key.split('|')[0];
      events.push({ ph: 's', name, cat: 'transfer', id, pid: s.pid, tid: s.tid, ts: s.ts - origin + s.dur / 2 });
      events.push({ ph: 'f', bp: 'e', name, cat: 'transfer', id, pid: r.pid, tid: r.tid, ts: r.ts - origin + Math.max(0, r.dur - 1) });
    }
  }
  return { traceEvents: events, displayTimeUnit: 'ns', otherData: { start_unix_nanos: origin * 1000 } };
}
