// Which image of a refreshed /api/images list to show. Pure; no DOM.

// The slider position in `next` (the new list) for the image at `pos` of
// `prev` (the old list). At (or past) the newest image, or with nothing shown
// before, the newest. Otherwise the same image, found by its `index` (the
// server's stable id; the list shifts as newer images push older ones out),
// else by its step; where it is gone (pushed out), the oldest kept.
export function restorePosition(prev, pos, next) {
  const last = next.length - 1;
  if (!next.length) return 0;
  if (!prev.length || pos >= prev.length - 1 || !prev[pos]) return last;
  const cur = prev[pos];
  let i = cur.index === undefined || cur.index === null ? -1 : next.findIndex((x) => x.index === cur.index);
  if (i < 0) i = next.findIndex((x) => x.step === cur.step && x.wall_time === cur.wall_time);
  return i >= 0 ? i : 0;
}
