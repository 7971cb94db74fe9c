// The console's client of chopar's API, on the same origin. It is signed in
// by a session cookie (chopar_session: HttpOnly, SameSite=Strict, set by
// POST /v1/console/sign-in), which scripts cannot read; every request that
// changes something repeats the session's CSRF token in X-CSRF-Token. The
// session (who, which role, the CSRF token) is kept in memory only: a new
// tab asks GET /v1/console/session.

import { laterLsn } from "/widget/chopar-client.js";

export class ApiError extends Error {
  constructor(status, body) {
    const error = body && body.error;
    super(error ? `${error.message} (${error.code})` : `HTTP ${status}`);
    this.status = status;
    this.code = error ? error.code : null;
    this.field = error ? error.field : null;
    this.retryAfter = null;
  }
}

let current = null;

// The signed-in session: {account: {id, email, role} | null, role,
// csrf_token, expires_at}, or null.
export function session() {
  return current;
}

export function setSession(value) {
  current = value || null;
}

// What a role may do, as the server decides it (docs/api.md "Console
// accounts"): viewer reads; operator also retries and cancels; admin does
// everything (the bootstrap key's session is an admin's).
const ROLE_SCOPES = {
  viewer: ["read"],
  operator: ["read", "operate"],
  admin: ["read", "operate", "manage", "notify", "admin"],
};

// Whether the session's role holds `scope` ("read", "operate", "manage",
// "admin"): buttons the role may not use are not shown (the server refuses
// them anyway).
export function can(scope) {
  return Boolean(current && (ROLE_SCOPES[current.role] || []).includes(scope));
}

// The position of this page's last write (Chopar-LSN, docs/api.md
// "Read-your-writes"): sent on every call, so a list read from a standby
// right after a change shows it.
let lastLsn = null;

async function send(path, method, body) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && method !== "HEAD" && current) headers["X-CSRF-Token"] = current.csrf_token;
  if (lastLsn) headers["Chopar-LSN"] = lastLsn;
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers,
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  lastLsn = laterLsn(lastLsn, response.headers.get("Chopar-LSN"));
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new ApiError(response.status, json);
    error.retryAfter = response.headers.get("Retry-After");
    throw error;
  }
  return json;
}

// Calls `path` with the session's cookie; resolves to the JSON body (null
// for 204), rejects with ApiError. A 401 signs out.
export async function api(path, { method = "GET", body } = {}) {
  try {
    return await send(path, method, body);
  } catch (error) {
    if (error.status === 401 && current) {
      current = null;
      window.dispatchEvent(new Event("chopar-signed-out"));
    }
    throw error;
  }
}

// Signs in with {email, password} or, while no account exists, {api_key};
// resolves to the session. Rejects with ApiError: 401 for a wrong email,
// password or key, 429 (retryAfter set) while sign-ins are throttled.
export async function signIn(credentials) {
  current = await send("/v1/console/sign-in", "POST", credentials);
  return current;
}

// The session of this browser's cookie, or null when there is none.
export async function resumeSession() {
  try {
    current = await send("/v1/console/session", "GET");
  } catch (error) {
    if (error.status !== 401) throw error;
    current = null;
  }
  return current;
}

export async function signOut() {
  try {
    await send("/v1/console/sign-out", "POST");
  } finally {
    current = null;
  }
}

// Whether any console account exists (GET /v1/console/sign-in): until one
// does, the server's API key signs in.
export async function accountsExist() {
  return (await send("/v1/console/sign-in", "GET")).accounts_exist;
}

// Like api(), but an endpoint this server does not have (404 on the route
// itself) resolves to null instead: pages of features still to come show a
// notice and light up once the server has them.
export async function optionalApi(path) {
  try {
    return await api(path);
  } catch (error) {
    if (error.status === 404 && error.code === "not_found") return null;
    throw error;
  }
}

// A query string from the set values of `params`.
export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

// The delivery channels the server knows (GET /v1/channels, which needs no
// key), in the API's order: {name, address, default, template_fields,
// settings} each; fetched once per page load. Every channel list of the
// console is built from it.
let channelsPromise = null;
export function channels() {
  channelsPromise ??=
      fetch('/v1/channels')
          .then(async (response) => {
            if (!response.ok) throw new ApiError(response.status, null);
            return (await response.json()).channels;
          })
          .catch((error) => {
            channelsPromise = null;  // the next page asks again
            throw error;
          });
  return channelsPromise;
}

// The channels' names, in the API's order.
export async function channelNames() {
  return (await channels()).map((channel) => channel.name);
}

// The address types a user's own fields and routes hold; any other is kept
// in the user's `addresses` under the channel's name.
const ADDRESSES_OF_THEIR_OWN = ['email', 'phone', 'telegram_chat', 'push_subscription', 'mobile_device'];

// The channels whose address is set through a user's `addresses`.
export async function channelsAddressedByUser() {
  return (await channels()).filter((channel) => !ADDRESSES_OF_THEIR_OWN.includes(channel.address));
}
