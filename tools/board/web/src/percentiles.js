// Percentiles of a histogram (HistogramProto: bucket i counts values in
// (bucket_limit[i-1], bucket_limit[i]], the first from min), interpolated
// linearly inside a bucket and clamped to [min, max]. BASIS_POINTS are
// TensorBoard's distribution bands: 0, 7, 16, 31, 50, 69, 84, 93, 100 %
// (the normal distribution's 0, ±0.5, ±1, ±1.5 sigma and the extremes).

export const BASIS_POINTS = [0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000];

export function percentiles(h, bps = BASIS_POINTS) {
  const counts = h.bucket || [];
  const limits = h.bucket_limit || [];
  const total = counts.reduce((a, b) => a + b, 0);
  if (!(total > 0) || !counts.length) return bps.map(() => h.min ?? 0);
  const clamp = (v) => Math.min(h.max, Math.max(h.min, v));
  let cum = 0;
  let i = 0;
  return bps.map((bp) => {
    if (bp <= 0) return h.min;
    if (bp >= 10000) return h.max;
    const target = (total * bp) / 10000;
    while (i < counts.length - 1 && cum + counts[i] < target) { cum += counts[i]; i++; }
    const lower = i === 0 ? h.min : Math.max(h.min, limits[i - 1]);
    const upper = Math.min(h.max, limits[i]);
    const frac = counts[i] > 0 ? Math.min(1, Math.max(0, (target - cum) / counts[i])) : 0;
    return clamp(lower + (upper - lower) * frac);
  });
}

// The histogram re-binned into `bins` equal bins over [lo, hi], assuming
// values spread evenly inside each source bucket (what the offset view draws).
export function rebin(h, lo, hi, bins) {
  const out = new Array(bins).fill(0);
  const width = (hi - lo) / bins || 1;
  const counts = h.bucket || [], limits = h.bucket_limit || [];
  for (let i = 0; i < counts.length; i++) {
    if (!counts[i]) continue;
    const a = Math.max(i === 0 ? h.min : limits[i - 1], h.min);
    const b = Math.min(limits[i], h.max);
    if (!(b > a)) { out[Math.min(bins - 1, Math.max(0, Math.floor((b - lo) / width)))] += counts[i]; continue; }
    const first = Math.max(0, Math.floor((a - lo) / width)), last = Math.min(bins - 1, Math.floor((b - lo) / width));
    for (let k = first; k <= last; k++) {
      const overlap = Math.min(b, lo + (k + 1) * width) - Math.max(a, lo + k * width);
      if (overlap > 0) out[k] += (counts[i] * overlap) / (b - a);
    }
  }
  return out;
}

// Whether a histogram holds any value. One with none (num == 0) has
// min = DBL_MAX and max = -DBL_MAX; its percentiles and range are meaningless.
export function hasCounts(h) {
  if (h.num !== undefined && h.num !== null && !(h.num > 0)) return false;
  const counts = h.bucket || [];
  for (const c of counts) if (c > 0) return true;
  return false;
}

// The distribution chart's data: steps, percentile bands (BASIS_POINTS) and
// the value range [lo, hi], over the histograms that hold values only.
export function distribution(hists) {
  const kept = hists.filter(hasCounts);
  const steps = kept.map((x) => x.step);
  const ps = kept.map((x) => percentiles(x));
  let lo = Infinity, hi = -Infinity;
  for (const p of ps) { if (p[0] < lo) lo = p[0]; if (p[p.length - 1] > hi) hi = p[p.length - 1]; }
  return { steps, ps, ...paddedRange(lo, hi) };
}

// [lo, hi] of min and max over the histograms that hold values.
export function valueRange(hists) {
  let lo = Infinity, hi = -Infinity;
  for (const x of hists) {
    if (!hasCounts(x)) continue;
    if (x.min < lo) lo = x.min;
    if (x.max > hi) hi = x.max;
  }
  return paddedRange(lo, hi);
}

function paddedRange(lo, hi) {
  if (!(lo <= hi)) return { lo: -0.5, hi: 0.5, empty: true }; // nothing to show
  if (!(hi > lo)) return { lo: lo - 0.5, hi: hi + 0.5, empty: false };
  return { lo, hi, empty: false };
}
