// The console's client of chopar's API, on the same origin. The API key is
// kept in sessionStorage: it lasts as long as the tab and is never sent
// anywhere but this server.

const KEY_NAME = "chopar.apiKey";

export class ApiError extends Error {
  constructor(status, body) {
    const error = body && body.error;
    super(error ? `${error.message} (${error.code})` : `HTTP ${status}`);
    this.status = status;
    this.code = error ? error.code : null;
    this.field = error ? error.field : null;
  }
}

export function apiKey() {
  return sessionStorage.getItem(KEY_NAME);
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY_NAME, key);
  else sessionStorage.removeItem(KEY_NAME);
}

// Calls `path` with the API key; resolves to the JSON body (null for 204),
// rejects with ApiError. A 401 signs out.
export async function api(path, { method = "GET", body, key = apiKey() } = {}) {
  const response = await fetch(path, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new ApiError(response.status, json);
    if (response.status === 401 && key === apiKey()) {
      setApiKey(null);
      window.dispatchEvent(new Event("chopar-signed-out"));
    }
    throw error;
  }
  return json;
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
