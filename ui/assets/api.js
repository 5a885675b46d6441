// The HTTP API of docs/serve.md, called with the token the person signed in
// with. The page calls nothing else: what it shows is what a search by the
// same token shows (docs/ui.md U1).

const TOKEN = 'sessionsearch.token';
const CALLER = 'sessionsearch.caller';

// APIError is an answer that is not a success: its status and the API's
// {code, field, value, message}.
export class APIError extends Error {
  constructor(status, error) {
    super((error && error.message) || `the server answered ${status}`);
    this.status = status;
    this.code = error && error.code;
    this.field = error && error.field;
  }
}

// takeTokenFromFragment keeps a token given in the address's fragment
// (`sessionsearch ui` prints such an address) in this tab's storage and
// takes it out of the address, so it is not in the history, a bookmark or
// a screenshot of the address bar. A fragment is never sent to a server.
export function takeTokenFromFragment() {
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (!m) return;
  sessionStorage.setItem(TOKEN, decodeURIComponent(m[1]));
  history.replaceState(history.state, '', location.pathname + location.search);
}

export function signIn(token, caller) {
  if (token) sessionStorage.setItem(TOKEN, token);
  else sessionStorage.removeItem(TOKEN);
  if (caller) sessionStorage.setItem(CALLER, caller);
  else sessionStorage.removeItem(CALLER);
}

export function signOut() {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(CALLER);
}

export function hasCredentials() {
  return sessionStorage.getItem(TOKEN) !== null || sessionStorage.getItem(CALLER) !== null;
}

// call sends one request; a body is sent as JSON. Without a token (a
// server in its loopback development mode) the body names the caller.
export async function call(method, path, body, signal) {
  const headers = { Accept: 'application/json' };
  const token = sessionStorage.getItem(TOKEN);
  if (token) headers.Authorization = 'Bearer ' + token;
  let payload;
  if (body !== undefined) {
    const caller = sessionStorage.getItem(CALLER);
    if (!token && caller) body = { caller, ...body };
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload, signal, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) throw new APIError(res.status, data && data.error);
  return data;
}

export const api = {
  me: (signal) => call('GET', '/v1/me', undefined, signal),
  options: (signal) => call('GET', '/v1/options', undefined, signal),
  search: (body, signal) => call('POST', '/v1/search', body, signal),
  history: (body, signal) => call('POST', '/v1/history', body, signal),
  session: (body, signal) => call('POST', '/v1/session', body, signal),
  activity: (body, signal) => call('POST', '/v1/activity', body, signal),
  highlight: (body, signal) => call('POST', '/v1/highlight', body, signal),
};
