// Stable colours: runs by their index in the sorted run list, ops and devices
// by a hash of their name, so a colour never changes while the page is open.

const TABLEAU = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

export function indexedColor(i) {
  if (i < TABLEAU.length) return TABLEAU[i];
  const hue = Math.round((i * 137.508) % 360);
  return `hsl(${hue} 60% 45%)`;
}

export function hashString(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function nameColor(name, light = false) {
  const hue = hashString(name) % 360;
  return light ? `hsl(${hue} 70% 85%)` : `hsl(${hue} 55% 55%)`;
}

// Canvas strokeStyle needs a plain colour: #rrggbb or hsl(h s% l%) in, with alpha out.
export function withAlpha(color, alpha) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (m) return `rgba(${parseInt(m[1], 16)}, ${parseInt(m[2], 16)}, ${parseInt(m[3], 16)}, ${alpha})`;
  if (color.startsWith('hsl(')) return color.replace(')', ` / ${alpha})`);
  return color;
}
