// ChoparClient: chopar's inbox for the browser, without a framework and
// without drawing anything — for pages that draw their own inbox, and the
// one <chopar-bell> is built on.
//
//   <script type="module">
//     import { ChoparClient } from "https://chopar.example/widget/chopar-client.js";
//     const inbox = new ChoparClient({ baseUrl: "https://chopar.example", token });
//     const { items, next_cursor } = await inbox.list({ limit: 20 });
//     inbox.subscribe({ counts: ({ unseen }) => badge(unseen), notification: prepend });
//   </script>
//
// Loaded as a module it is also `window.ChoparClient`, for the page's other
// scripts. Every call uses the subscriber token (GET /v1/users/{id}/token,
// fetched by the application's backend) as `Authorization: Bearer`, never
// cookies; `getToken`, when given, is asked for a new one after a 401 (an
// expired token) and the call is made once more with it. A failed call
// rejects with a ChoparError carrying the HTTP status and chopar's error
// code. The routes are those of docs/api.md "Inbox".

const BACKOFF_INITIAL_MS = 1000;
const BACKOFF_MAX_MS = 30000;

// The live events the stream sends (docs/api.md "GET /v1/inbox/stream").
const STREAM_EVENTS = ["notification", "state", "counts", "unread_count"];

export class ChoparError extends Error {
  constructor(status, code, message) {
    super(message || `chopar answered ${status}${code ? ` ${code}` : ""}`);
    this.name = "ChoparError";
    this.status = status;
    this.code = code;
  }
}

// "a,b" for a list of categories, the string itself for one.
function joined(value) {
  return Array.isArray(value) ? value.join(",") : value;
}

// A query string from the members that are set ("" when none is).
// The later of two Chopar-LSN values ("16/B374D848"; null or malformed: the other).
export function laterLsn(a, b) {
  const value = (lsn) => {
    const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(lsn ?? "");
    return match ? BigInt(`0x${match[1]}`) * 4294967296n + BigInt(`0x${match[2]}`) : null;
  };
  const [va, vb] = [value(a), value(b)];
  if (vb === null) return va === null ? null : a;
  return va === null || vb > va ? b : a;
}

function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "") continue;
    search.set(name, String(joined(value)));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

export class ChoparClient {
  // baseUrl: chopar's origin (default: where this script came from).
  // token: the subscriber token; getToken: async () => a fresh token.
  // tenant: a tenant's key — lists, counts, the stream and bulk changes
  // then cover only that tenant's notifications.
  constructor({ baseUrl, token = "", tenant = null, getToken = null } = {}) {
    this.baseUrl = (baseUrl || new URL(import.meta.url).origin).replace(/\/+$/, "");
    this.token = token;
    this.tenant = tenant || null;
    this._getToken = getToken;
    this._handlers = new Set();
    this._stream = null; // the open stream's controller while subscribed
    this._lastEventId = null;
    this._closed = false;
  }

  // ---- reading -------------------------------------------------------------

  // One page, newest first: {items: [notification…], next_cursor}.
  // archived / snoozed: only those; unread: true for unread only; seen:
  // false for unseen only; category: a name or a list; tag: one tag.
  list({ archived, snoozed, category, tag, unread, seen, cursor, limit } = {}) {
    const params = {
      limit,
      cursor,
      archived: archived ? "true" : undefined,
      snoozed: snoozed ? "true" : undefined,
      unread: unread ? "true" : undefined,
      seen: seen === false ? "false" : undefined,
      category,
      tag,
      tenant: this.tenant,
    };
    return this.request("GET", `/v1/inbox/notifications${query(params)}`);
  }

  // How many notifications are unseen (the default) or unread; never
  // counting archived or snoozed ones.
  async count({ count = "unseen", category, tag } = {}) {
    const params = { count, category, tag, tenant: this.tenant };
    return (await this.request("GET", `/v1/inbox/count${query(params)}`)).count;
  }

  // The tenant's name and branding (GET /v1/inbox/tenants/{key}).
  tenantInfo(key = this.tenant) {
    return this.request("GET", `/v1/inbox/tenants/${encodeURIComponent(key)}`);
  }

  preferences() {
    return this.request("GET", "/v1/inbox/preferences");
  }

  setPreferences(change) {
    return this.request("PUT", "/v1/inbox/preferences", change);
  }

  // The server's channels (GET /v1/channels: public, no token, so no
  // preflight).
  async channels() {
    const response = await fetch(`${this.baseUrl}/v1/channels`, { mode: "cors", credentials: "omit" });
    if (!response.ok) throw new ChoparError(response.status, null);
    return (await response.json()).channels;
  }

  // ---- changing states ---------------------------------------------------
  //
  // Each takes {ids: [...]} or {all: true} (or just an array of ids), with
  // optional category / tag narrowing it, and resolves to the number of
  // notifications it changed ({"updated": n}: a repeat changes none).

  markSeen(target) {
    return this._change("seen", target);
  }

  markRead(target) {
    return this._change("read", target);
  }

  markUnread(target) {
    return this._change("unread", target);
  }

  archive(target) {
    return this._change("archive", target);
  }

  unarchive(target) {
    return this._change("unarchive", target);
  }

  // Also takes `until` (a Date or an RFC 3339 time, at most 90 days ahead)
  // or `minutes` (1..129600).
  snooze(target) {
    const body = { ...target };
    if (body.until instanceof Date) body.until = body.until.toISOString();
    return this._change("snooze", body);
  }

  unsnooze(target) {
    return this._change("unsnooze", target);
  }

  // Presses action n (0 or 1) of notification `id`: an `event` action is
  // recorded once and the notification read. Resolves to
  // {notification_id, action, event, pressed_at, recorded}.
  pressAction(id, n) {
    return this.request("POST", `/v1/inbox/notifications/${encodeURIComponent(id)}/actions/${encodeURIComponent(n)}`, {});
  }

  async _change(change, target) {
    const body = Array.isArray(target) ? { ids: target } : { ...target };
    if (this.tenant && body.tenant === undefined && body.all) body.tenant = this.tenant;
    return (await this.request("POST", `/v1/inbox/${change}`, body)).updated;
  }

  // ---- the HTTP call ------------------------------------------------------

  // Any inbox route: resolves to the parsed JSON answer (null for 204).
  async request(method, path, body) {
    let response = await this._fetch(method, path, body);
    if (response.status === 401 && (await this._refreshToken())) response = await this._fetch(method, path, body);
    if (!response.ok) {
      let error = null;
      try {
        error = (await response.json()).error;
      } catch {
        // not JSON: the status says enough
      }
      throw new ChoparError(response.status, error?.code ?? null, error?.message);
    }
    return response.status === 204 ? null : response.json();
  }

  async _fetch(method, path, body) {
    const headers = { Authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    // Read-your-writes with standbys (docs/api.md): the last write's position.
    if (this._lsn) headers["Chopar-LSN"] = this._lsn;
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      mode: "cors",
      credentials: "omit",
    });
    this._lsn = laterLsn(this._lsn, response.headers.get("Chopar-LSN"));
    return response;
  }

  // Asks getToken for a new token; whether one came.
  async _refreshToken() {
    if (!this._getToken) return false;
    try {
      const token = await this._getToken();
      if (!token || token === this.token) return false;
      this.token = token;
      return true;
    } catch {
      return false;
    }
  }

  // ---- live events --------------------------------------------------------

  // Calls handlers.notification(item), .state(change), .counts({unseen,
  // unread}), .unread_count({count}) as the stream sends them (each parsed),
  // .open({reconnected}) when the stream is (again) connected — after a
  // reconnect, state changes made meanwhile were not seen: refetch — and
  // .offline({attempt, delay, status}) when it dropped and will be reopened
  // after `delay` ms. A 401 asks getToken for a new token; without one the
  // stream stops and .offline gets `delay: null`. Returns a function that
  // removes these handlers (the stream closes with the last of them).
  subscribe(handlers) {
    this._closed = false;
    this._handlers.add(handlers);
    if (!this._stream) this._openStream(0, false);
    return () => {
      this._handlers.delete(handlers);
      if (this._handlers.size === 0) this._stopStream();
    };
  }

  // Ends the stream and every subscription.
  close() {
    this._closed = true;
    this._handlers.clear();
    this._stopStream();
  }

  get connected() {
    return Boolean(this._stream?.connected);
  }

  _emit(name, value) {
    for (const handlers of [...this._handlers]) {
      try {
        handlers[name]?.(value);
      } catch (error) {
        // One subscriber's bug does not stop the others or the stream.
        setTimeout(() => {
          throw error;
        });
      }
    }
  }

  _stopStream() {
    if (!this._stream) return;
    this._stream.abort.abort();
    clearTimeout(this._stream.timer);
    this._stream = null;
  }

  // Reads the stream with fetch rather than EventSource: the token goes in a
  // header (not the URL, so not in access logs), the Last-Event-ID of the
  // last notification seen is sent on every reopen (the server then sends
  // what was missed), a 401 is told apart from a network error, and the
  // back-off is ours (1 s doubling to 30 s, jittered) instead of the
  // browser's fixed retry.
  async _openStream(attempt, reconnected) {
    const stream = { abort: new AbortController(), timer: null, connected: false };
    this._stream = stream;
    let status = null;
    try {
      const headers = { Authorization: `Bearer ${this.token}`, Accept: "text/event-stream" };
      if (this._lastEventId) headers["Last-Event-ID"] = this._lastEventId;
      const response = await fetch(`${this.baseUrl}/v1/inbox/stream${query({ tenant: this.tenant })}`, {
        headers,
        mode: "cors",
        credentials: "omit",
        cache: "no-store",
        signal: stream.abort.signal,
      });
      status = response.status;
      if (status === 401 && (await this._refreshToken())) {
        if (this._stream === stream) this._openStream(attempt, reconnected);
        return;
      }
      if (!response.ok || !response.body) throw new ChoparError(status, null);
      stream.connected = true;
      attempt = 0;
      this._emit("open", { reconnected });
      await this._read(response.body, stream);
    } catch (error) {
      if (stream.abort.signal.aborted) return;
    }
    if (this._stream !== stream || this._closed) return;
    stream.connected = false;
    // A refused token will be refused again: stop until the page acts.
    if (status === 401) {
      this._stream = null;
      this._emit("offline", { attempt, delay: null, status });
      return;
    }
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** attempt);
    const delay = Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
    this._emit("offline", { attempt, delay, status });
    stream.timer = setTimeout(() => {
      if (this._stream === stream) this._openStream(attempt + 1, true);
    }, delay);
  }

  // The text/event-stream format: events end at a blank line; "event:",
  // "data:" (joined by newlines) and "id:" fields; ":" lines are comments.
  async _read(body, stream) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let event = { name: "message", data: [], id: null };
    for (;;) {
      const { value, done } = await reader.read();
      if (done || this._stream !== stream) return;
      buffer += value;
      let newline;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (event.id !== null) this._lastEventId = event.id;
          if (event.data.length > 0) this._dispatch(event.name, event.data.join("\n"));
          event = { name: "message", data: [], id: null };
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event.name = text;
        else if (field === "data") event.data.push(text);
        else if (field === "id" && !text.includes("\0")) event.id = text;
      }
    }
  }

  _dispatch(name, data) {
    if (!STREAM_EVENTS.includes(name)) return;
    let value;
    try {
      value = JSON.parse(data);
    } catch {
      return;
    }
    this._emit(name, value);
  }
}

if (typeof window !== "undefined" && !window.ChoparClient) window.ChoparClient = ChoparClient;
