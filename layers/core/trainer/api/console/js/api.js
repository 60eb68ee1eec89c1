const TOKEN_KEY = "trainer.console.token";

export const apiBase = location.pathname.replace(/\/console(\/.*)?$/, "");

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const auth = {
  get token() {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  set token(value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  },
  get userId() {
    const payload = (this.token || "").split(".")[1];
    if (!payload) return null;
    try {
      return JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))).sub ?? null;
    } catch {
      return null;
    }
  },
};

export function url(path, query = {}) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(name, String(value));
  }
  const search = params.toString();
  return `${apiBase}${path}${search ? `?${search}` : ""}`;
}

export function headers(extra = {}) {
  return auth.token ? { Authorization: `Bearer ${auth.token}`, ...extra } : { ...extra };
}

export async function errorOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const info = body?.error ?? {};
  const error = new ApiError(response.status, info.code ?? "http_error", info.message ?? response.statusText);
  if (response.status === 401) window.dispatchEvent(new CustomEvent("console:unauthorized", { detail: error }));
  return error;
}

export async function api(path, { method = "GET", query, body, signal } = {}) {
  const init = { method, headers: headers(), signal };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url(path, query), init);
  if (!response.ok) throw await errorOf(response);
  return response.status === 204 ? null : response.json();
}

export async function localToken() {
  const response = await fetch(url("/console/local-token"), { headers: { Accept: "application/json" } });
  return response.ok ? response.json() : null;
}
