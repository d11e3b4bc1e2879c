// GETs the board's JSON API (tools/board/API.md). Errors become Error objects
// carrying the server's status code name and message, so views can show them
// in the page instead of the console.

export class ApiError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

export async function getJson(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, String(v));
  const url = q.toString() ? `${path}?${q}` : path;
  let res;
  try {
    res = await fetch(url, { cache: 'no-store' });
  } catch (err) {
    throw new ApiError('UNAVAILABLE', `cannot reach the board server (${err.message})`);
  }
  let body = null;
  try { body = await res.json(); } catch { /* not JSON: reported below */ }
  if (!res.ok) {
    const e = body && body.error;
    throw new ApiError(e?.code || `HTTP_${res.status}`, e?.message || `${url}: HTTP ${res.status}`);
  }
  if (body === null) throw new ApiError('DATA_LOSS', `${url}: the answer is not JSON`);
  return body;
}

export function imageUrl(run, tag, index) {
  return `/api/image?${new URLSearchParams({ run, tag, index: String(index) })}`;
}
