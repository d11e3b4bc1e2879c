#!/usr/bin/env node
// A stand-in for `flowvm board`, for developing and testing the front end
// without the C++ server. It serves the built files and answers the JSON API
// of tools/board/API.md from real event files, read in JS:
//
//   node tools/board/web/dev/mock_server.mjs --static OUTDIR --logdir DIR
//        [--port P (0: any free one)] [--graph FILE.pb|.pbtxt]... [--trace FILE.json]...
//        [--reload-ms MS]
//
// Prints "board listening on http://127.0.0.1:PORT/" once ready. Loopback
// only. Unlike the real server it keeps every point (up to 10,000 per tag,
// then evenly thinned) instead of reservoir sampling.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  decodeGraphDef, findRuns, parsePbtxtGraph, readRecords, decodeEvent, runMetadataToChromeTrace,
} from './tfevents.mjs';

function parseArgs(argv) {
  const a = { port: 0, graph: [], trace: [], reloadMs: 1000, static: null, logdir: null };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i], v = argv[i + 1];
    if (k === '--port') { a.port = Number(v); i++; }
    else if (k === '--logdir') { a.logdir = v; i++; }
    else if (k === '--static') { a.static = v; i++; }
    else if (k === '--graph') { a.graph.push(v); i++; }
    else if (k === '--trace') { a.trace.push(v); i++; }
    else if (k === '--reload-ms') { a.reloadMs = Number(v); i++; }
    else { console.error(`mock_server: unknown argument '${k}'`); process.exit(2); }
  }
  if (!a.static || !a.logdir) { console.error('usage: mock_server.mjs --static OUTDIR --logdir DIR [--port P]'); process.exit(2); }
  return a;
}

const args = parseArgs(process.argv.slice(2));
const MAX_KEPT = 10000;

// run name -> {generation, files: Map(path -> {size, mtimeMs, events}), derived}
const runs = new Map();
let generation = 0;
let lastScan = 0;

function rescan() {
  const now = Date.now();
  if (now - lastScan < args.reloadMs && lastScan) return;
  lastScan = now;
  for (const { name, files } of findRuns(args.logdir)) {
    let run = runs.get(name);
    if (!run) { run = { generation: 0, files: new Map(), derived: null }; runs.set(name, run); }
    let changed = false;
    for (const file of files) {
      let st;
      try { st = fs.statSync(file); } catch { continue; }
      const old = run.files.get(file);
      if (old && old.size === st.size && old.mtimeMs === st.mtimeMs) continue;
      const { records } = readRecords(fs.readFileSync(file));
      const events = [];
      for (const r of records) { try { events.push(decodeEvent(r)); } catch { /* skip a bad record */ } }
      run.files.set(file, { size: st.size, mtimeMs: st.mtimeMs, events });
      changed = true;
    }
    if (changed) { run.generation = ++generation; run.derived = null; }
  }
}

function derive(run) {
  if (run.derived) return run.derived;
  const d = { scalars: new Map(), histograms: new Map(), images: new Map(), runMetadata: new Map(), graph: null,
    firstWall: null, lastStep: 0 };
  const files = [...run.files.keys()].sort();
  for (const f of files) {
    for (const e of run.files.get(f).events) {
      if (d.firstWall === null || e.wall_time < d.firstWall) d.firstWall = e.wall_time;
      d.lastStep = Math.max(d.lastStep, e.step);
      if (e.graph_def) d.graph = e.graph_def;
      if (e.tagged_run_metadata) d.runMetadata.set(e.tagged_run_metadata.tag, e.tagged_run_metadata.run_metadata);
      for (const v of e.summary || []) {
        if (v.simple_value !== undefined) {
          if (!d.scalars.has(v.tag)) d.scalars.set(v.tag, []);
          d.scalars.get(v.tag).push([e.step, e.wall_time, v.simple_value]);
        } else if (v.histo) {
          if (!d.histograms.has(v.tag)) d.histograms.set(v.tag, []);
          d.histograms.get(v.tag).push({ step: e.step, wall_time: e.wall_time, ...v.histo });
        } else if (v.image) {
          if (!d.images.has(v.tag)) d.images.set(v.tag, []);
          d.images.get(v.tag).push({ step: e.step, wall_time: e.wall_time, width: v.image.width, height: v.image.height, png: v.image.png });
        }
      }
    }
  }
  for (const [tag, pts] of d.scalars) {
    pts.sort((a, b) => a[0] - b[0]);
    d.scalars.set(tag, { seen: pts.length, kept: thin(pts, MAX_KEPT) });
  }
  for (const [tag, hs] of d.histograms) d.histograms.set(tag, thin(hs.sort((a, b) => a.step - b.step), 500));
  // `index` identifies an image across reloads, as the server's per-tag counter does.
  for (const [tag, im] of d.images) d.images.set(tag, im.map((x, index) => ({ ...x, index })).slice(-10));
  run.derived = d;
  return d;
}

// Evenly spaced in index, first and last kept.
function thin(arr, n) {
  if (arr.length <= n) return arr;
  if (n <= 1) return arr.slice(-1);
  const out = [];
  for (let i = 0; i < n; i++) out.push(arr[Math.round((i * (arr.length - 1)) / (n - 1))]);
  return out;
}

const sortedKeys = (m) => [...m.keys()].sort();

function apiRuns() {
  return {
    logdir: path.resolve(args.logdir), generation,
    runs: [...runs.keys()].sort().map((name) => {
      const run = runs.get(name), d = derive(run);
      return { name, generation: run.generation, scalar_tags: sortedKeys(d.scalars), histogram_tags: sortedKeys(d.histograms),
        image_tags: sortedKeys(d.images), run_metadata_tags: sortedKeys(d.runMetadata), has_graph: !!d.graph,
        first_wall_time: d.firstWall, last_step: d.lastStep };
    }),
    graph_files: args.graph.map((f) => path.basename(f)),
    trace_files: args.trace.map((f) => path.basename(f)),
  };
}

class HttpError extends Error { constructor(status, code, message) { super(message); this.status = status; this.code = code; } }
const notFound = (msg) => new HttpError(404, 'NOT_FOUND', msg);
const badArg = (msg) => new HttpError(400, 'INVALID_ARGUMENT', msg);

function getRun(q) {
  const name = q.get('run');
  if (name === null) throw badArg('missing parameter run');
  const run = runs.get(name);
  if (!run) throw notFound(`no run '${name}'`);
  return derive(run);
}

function apiScalars(q) {
  const tag = q.get('tag');
  if (tag === null) throw badArg('missing parameter tag');
  const maxPoints = Math.min(100000, Math.max(1, Number(q.get('max_points') || 1000)));
  const minStep = q.has('min_step') ? Number(q.get('min_step')) : -Infinity;
  const maxStep = q.has('max_step') ? Number(q.get('max_step')) : Infinity;
  if (q.has('runs')) throw badArg("/api/scalars takes one 'run' per run (run=a&run=b), not 'runs'"); // catches an old client
  const names = q.has('run') ? q.getAll('run') : [...runs.keys()].sort(); // repeated run=; unknown runs skipped
  const out = { tag, runs: {} };
  for (const name of names) {
    const run = runs.get(name);
    if (!run) continue;
    const s = derive(run).scalars.get(tag);
    if (!s) continue;
    const inRange = s.kept.filter((p) => p[0] >= minStep && p[0] <= maxStep);
    const pts = thin(inRange, maxPoints);
    out.runs[name] = { step: pts.map((p) => p[0]), wall_time: pts.map((p) => p[1]),
      value: pts.map((p) => (Number.isFinite(p[2]) ? p[2] : null)), kept: inRange.length, seen: s.seen };
  }
  return out;
}

function apiHistograms(q) {
  const d = getRun(q), tag = q.get('tag');
  const hs = d.histograms.get(tag);
  if (!hs) throw notFound(`run '${q.get('run')}' has no histogram tag '${tag}'`);
  return { run: q.get('run'), tag, histograms: hs };
}

function apiImages(q) {
  const d = getRun(q), tag = q.get('tag');
  const im = d.images.get(tag);
  if (!im) throw notFound(`run '${q.get('run')}' has no image tag '${tag}'`);
  return { run: q.get('run'), tag, images: im.map((x) => ({ step: x.step, wall_time: x.wall_time, width: x.width, height: x.height, index: x.index })) };
}

function fileArg(list, q) {
  const f = list.find((p) => path.basename(p) === q.get('file'));
  if (!f) throw notFound(`no file '${q.get('file')}'`);
  return f;
}

function graphNodes(q) {
  if (q.has('file')) {
    const f = fileArg(args.graph, q);
    return { source: path.basename(f), nodes: f.endsWith('.pbtxt') ? parsePbtxtGraph(fs.readFileSync(f, 'utf8')) : decodeGraphDef(fs.readFileSync(f)) };
  }
  const d = getRun(q);
  if (!d.graph) throw notFound(`run '${q.get('run')}' has no graph`);
  return { source: q.get('run'), nodes: decodeGraphDef(d.graph) };
}

function apiGraph(q) {
  const { source, nodes } = graphNodes(q);
  const devices = [...new Set(nodes.map((n) => n.device).filter(Boolean))].sort();
  return { source, nodes, devices, errors: [] };
}

function apiTrace(q) {
  if (q.has('file')) return JSON.parse(fs.readFileSync(fileArg(args.trace, q), 'utf8'));
  const d = getRun(q), tag = q.get('tag');
  const rm = d.runMetadata.get(tag);
  if (!rm) throw notFound(`run '${q.get('run')}' has no run metadata tag '${tag}'`);
  return runMetadataToChromeTrace(rm);
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

function handle(req, res) {
  const url = new URL(req.url, 'http://127.0.0.1');
  const q = url.searchParams;
  const send = (status, type, body) => { res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' }); res.end(body); };
  try {
    if (url.pathname.startsWith('/api/')) {
      rescan();
      if (url.pathname === '/api/image') {
        const d = getRun(q), im = d.images.get(q.get('tag'));
        const x = im && im.find((y) => String(y.index) === q.get('index'));
        if (!x) throw notFound(`run '${q.get('run')}' has no image ${q.get('index')} for tag '${q.get('tag')}'`);
        return send(200, 'image/png', x.png);
      }
      const api = { '/api/runs': apiRuns, '/api/scalars': apiScalars, '/api/histograms': apiHistograms,
        '/api/images': apiImages, '/api/graph': apiGraph, '/api/trace': apiTrace }[url.pathname];
      if (!api) throw notFound(`no endpoint ${url.pathname}`);
      return send(200, 'application/json; charset=utf-8', JSON.stringify(api(q)));
    }
    const name = url.pathname === '/' ? 'index.html' : url.pathname.slice(1);
    if (!['index.html', 'board.js', 'board.css'].includes(name)) throw notFound(`no file ${url.pathname}`);
    return send(200, TYPES[path.extname(name)], fs.readFileSync(path.join(args.static, name)));
  } catch (err) {
    const status = err.status || 500;
    return send(status, 'application/json; charset=utf-8',
      JSON.stringify({ error: { code: err.code || 'INTERNAL', message: err.message } }));
  }
}

const server = http.createServer(handle);
server.listen(args.port, '127.0.0.1', () => {
  rescan();
  console.log(`board listening on http://127.0.0.1:${server.address().port}/`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { server.close(); process.exit(0); });
