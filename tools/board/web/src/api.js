// GETs the board's JSON API (tools/board/API.md). Errors become Error objects
// carrying the server's status code name and message, so views can show them
// in the page instead of the console.

export class ApiError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

// `path?k=v&...`: each key and value encodeURIComponent'd (a space is %20, a
// comma %2C); an array value repeats its key (run=a&run=b); undefined and null
// are left out.
export function apiUrl(path, params = {}) {
  const parts = [];
  for (const [k, v] of Object.entries(params)) {
    for (const x of Array.isArray(v) ? v : [v]) {
      if (x !== undefined && x !== null) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(x))}`);
    }
  }
  return parts.length ? `${path}?${parts.join('&')}` : path;
}

export async function getJson(path, params = {}) {
  const url = apiUrl(path, params);
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
  return apiUrl('/api/image', { run, tag, index });
}
