// TensorBoard's scalar smoothing: an exponential moving average debiased
// like Adam's (divided by 1 - w^n), so the curve starts at the first value
// instead of at zero. Non-finite values (null, NaN) pass through unsmoothed
// and do not disturb the average. A constant series is returned as is.

export function smooth(values, weight) {
  if (!(weight > 0)) return values.slice();
  const w = Math.min(weight, 0.999999);
  const finite = values.filter((v) => v !== null && Number.isFinite(v));
  if (finite.length && finite.every((v) => v === finite[0])) return values.slice();
  let last = 0;
  let n = 0;
  return values.map((v) => {
    if (v === null || !Number.isFinite(v)) return v;
    last = last * w + (1 - w) * v;
    n++;
    return last / (1 - Math.pow(w, n));
  });
}
