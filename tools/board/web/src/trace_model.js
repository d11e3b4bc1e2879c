// Chrome trace-event JSON (as /api/trace sends it, include/flowvm/trace.h)
// -> lanes of slices and Send->Recv flows, ready to draw. Pure; no DOM.
//
// Lanes are (pid, tid) pairs ordered by process then thread sort index;
// slices are "X" events (and B/E pairs); flows pair "s" and "f" events of the
// same cat and id, each bound to the slice of its thread that encloses its
// timestamp (the "f" end also to one that ends exactly there, bp "e").

export function parseTrace(json) {
  const events = Array.isArray(json) ? json : (json && Array.isArray(json.traceEvents) ? json.traceEvents : []);
  const procName = new Map(), procSort = new Map(), threadName = new Map(), threadSort = new Map();
  const laneMap = new Map();
  const lane = (pid, tid) => {
    const k = `${pid}:${tid}`;
    if (!laneMap.has(k)) laneMap.set(k, { key: k, pid, tid, slices: [] });
    return laneMap.get(k);
  };
  const open = new Map();
  const flowEnds = new Map();
  for (const e of events) {
    if (!e || typeof e !== 'object') continue;
    const pid = e.pid ?? 0, tid = e.tid ?? 0;
    switch (e.ph) {
      case 'M':
        if (e.name === 'process_name') procName.set(pid, String(e.args?.name ?? pid));
        else if (e.name === 'process_sort_index') procSort.set(pid, Number(e.args?.sort_index ?? 0));
        else if (e.name === 'thread_name') threadName.set(`${pid}:${tid}`, String(e.args?.name ?? tid));
        else if (e.name === 'thread_sort_index') threadSort.set(`${pid}:${tid}`, Number(e.args?.sort_index ?? 0));
        break;
      case 'X':
        lane(pid, tid).slices.push({ name: String(e.name ?? ''), cat: e.cat, ts: Number(e.ts) || 0, dur: Math.max(0, Number(e.dur) || 0), args: e.args || {} });
        break;
      case 'B': {
        const k = `${pid}:${tid}`;
        if (!open.has(k)) open.set(k, []);
        open.get(k).push(e);
        break;
      }
      case 'E': {
        const b = open.get(`${pid}:${tid}`)?.pop();
        if (b) lane(pid, tid).slices.push({ name: String(b.name ?? ''), cat: b.cat, ts: Number(b.ts) || 0, dur: Math.max(0, (Number(e.ts) || 0) - (Number(b.ts) || 0)), args: b.args || {} });
        break;
      }
      case 's': case 'f': case 't': {
        const k = `${e.cat}|${e.id}`;
        if (!flowEnds.has(k)) flowEnds.set(k, { name: e.name });
        if (e.ph === 's') flowEnds.get(k).s = e; else flowEnds.get(k).f = e;
        break;
      }
      default: break;
    }
  }
  const lanes = [...laneMap.values()];
  for (const l of lanes) {
    l.slices.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    l.process = procName.get(l.pid) ?? `process ${l.pid}`;
    l.thread = threadName.get(l.key) ?? `thread ${l.tid}`;
    l.label = `${l.process} · ${l.thread}`;
    // Nesting depth inside the lane (slices on one thread may nest).
    const stack = [];
    for (const s of l.slices) {
      while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= s.ts) stack.pop();
      s.depth = stack.length;
      stack.push(s);
    }
    l.depth = 1;
    for (const s of l.slices) if (s.depth + 1 > l.depth) l.depth = s.depth + 1;
  }
  lanes.sort((a, b) => (procSort.get(a.pid) ?? a.pid) - (procSort.get(b.pid) ?? b.pid) || a.pid - b.pid ||
    (threadSort.get(a.key) ?? a.tid) - (threadSort.get(b.key) ?? b.tid) || a.tid - b.tid);
  lanes.forEach((l, i) => { l.index = i; for (const s of l.slices) s.lane = l; });

  const flows = [];
  for (const [, { name, s, f }] of flowEnds) {
    if (!s || !f) continue;
    const from = enclosing(laneMap.get(`${s.pid ?? 0}:${s.tid ?? 0}`), Number(s.ts), false);
    const to = enclosing(laneMap.get(`${f.pid ?? 0}:${f.tid ?? 0}`), Number(f.ts), f.bp === 'e');
    flows.push({ name: String(name ?? ''), fromTs: Number(s.ts), toTs: Number(f.ts), from, to,
      fromLane: laneMap.get(`${s.pid ?? 0}:${s.tid ?? 0}`) || null, toLane: laneMap.get(`${f.pid ?? 0}:${f.tid ?? 0}`) || null });
  }
  // Plain loops: spreading a million slices into Math.min throws RangeError.
  let start = Infinity, end = -Infinity, sliceCount = 0;
  for (const l of lanes) {
    for (const x of l.slices) {
      if (x.ts < start) start = x.ts;
      if (x.ts + x.dur > end) end = x.ts + x.dur;
    }
    sliceCount += l.slices.length;
  }
  if (!sliceCount) { start = 0; end = 1; }
  return { lanes, flows, start, end: end > start ? end : start + 1, sliceCount };
}

function enclosing(lane, ts, endInclusive) {
  if (!lane) return null;
  let best = null;
  for (const s of lane.slices) {
    if (s.ts > ts) break;
    if (ts < s.ts + s.dur || (endInclusive && ts <= s.ts + s.dur) || (s.dur === 0 && ts === s.ts)) {
      if (!best || s.depth >= best.depth) best = s;
    }
  }
  return best;
}
