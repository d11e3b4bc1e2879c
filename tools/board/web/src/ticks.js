// Axis ticks for a numeric range. Pure; no DOM.

// A "nice" step (1, 2 or 5 times a power of ten) near x.
export function niceStep(x) {
  if (!(x > 0) || !Number.isFinite(x)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(x)));
  const m = x / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

// Multiples of `step` in [v0, v1], at most `cap` of them. Loops over an
// integer tick index, so it ends even where t + step == t (a view a few units
// wide at 1e15, e.g. epoch microseconds); ticks that round to the same double
// are dropped.
export function ticks(v0, v1, step, cap = 100) {
  const out = [];
  if (!Number.isFinite(v0) || !Number.isFinite(v1) || !(v1 >= v0) || !(step > 0) || !Number.isFinite(step)) return out;
  const i0 = Math.ceil(v0 / step);
  for (let k = 0; k < cap; k++) {
    const t = (i0 + k) * step;
    if (!(t <= v1)) break;
    if (out.length && t <= out[out.length - 1]) continue;
    out.push(t);
  }
  return out;
}
