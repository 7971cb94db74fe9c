// <chopar-bell>: chopar's in-app inbox as a framework-free custom element.
//
//   <script type="module" src="https://chopar.example/widget/chopar-bell.js"></script>
//   <chopar-bell server="https://chopar.example" token="v2.42.0.1801234567.mX…" locale="uz"
//   push></chopar-bell>
//
// `token` is a subscriber token the host application's backend got from
// GET /v1/users/{id}/token. Everything lives in a shadow root (no global CSS
// in or out); the look is set with CSS custom properties (--chopar-bell-*)
// and ::part(button | badge | panel | header | title | mark-all | list |
// item | unread | empty | push | footer | settings | preferences). Attributes:
//   server  chopar's base URL (default: the origin this script came from)
//   token   the subscriber token (required)
//   locale  "uz" or "en" (default: the page's <html lang>, else "en")
//   push    show the Web Push opt-in when the server has VAPID keys
//   sw      the service worker URL for push (default: <server>/widget/chopar-sw.js,
//           which only a page on chopar's own origin may register; other
//           origins serve a one-line worker: importScripts("<server>/widget/chopar-sw.js"))
//   categories  the notification categories the settings view offers, e.g.
//           "tasks marketing" (with those the user already has settings for)
//   tenant  a tenant's key: the bell of that tenant's application, showing
//           and counting only the notifications in that tenant, headed by
//           the tenant's name (GET /v1/inbox/tenants/{key})
//
// The settings view (the button at the panel's foot) shows the user's own
// preferences (GET/PUT /v1/inbox/preferences) as switches: all
// notifications, then each category, by channel — the server's channels
// (GET /v1/channels), each on by its own default until the user says.

const TEXTS = {
  en: {
    notifications: "Notifications",
    unread: (n) => (n === 0 ? "no unread" : n === 1 ? "1 unread" : `${n} unread`),
    markAll: "Mark all as read",
    empty: "No notifications yet",
    loading: "Loading…",
    loadFailed: "Could not load notifications",
    offline: "Reconnecting…",
    newItem: (title) => `New notification: ${title}`,
    unreadMarker: "Unread",
    enablePush: "Enable push notifications",
    pushOn: "Push notifications are on",
    pushDenied: "Push notifications are blocked in this browser",
    close: "Close",
    justNow: "just now",
    settings: "Notification settings",
    back: "Back to notifications",
    allNotifications: "All notifications",
    channelNames: { email: "Email", telegram: "Telegram", push: "Push", sms: "SMS", mobile: "Mobile", discord: "Discord", msteams: "Microsoft Teams", slack: "Slack", whatsapp: "WhatsApp" },
    switchLabel: (row, channel) => `${row}: ${channel}`,
    saved: "Saved",
    saveFailed: "Could not save the setting",
    settingsLoadFailed: "Could not load the settings",
  },
  uz: {
    notifications: "Bildirishnomalar",
    unread: (n) => (n === 0 ? "o‘qilmagan yo‘q" : `${n} ta o‘qilmagan`),
    markAll: "Hammasini o‘qildi deb belgilash",
    empty: "Hozircha bildirishnoma yo‘q",
    loading: "Yuklanmoqda…",
    loadFailed: "Bildirishnomalarni yuklab bo‘lmadi",
    offline: "Qayta ulanmoqda…",
    newItem: (title) => `Yangi bildirishnoma: ${title}`,
    unreadMarker: "O‘qilmagan",
    enablePush: "Push bildirishnomalarni yoqish",
    pushOn: "Push bildirishnomalar yoqilgan",
    pushDenied: "Bu brauzerda push bildirishnomalar bloklangan",
    close: "Yopish",
    justNow: "hozirgina",
    settings: "Bildirishnoma sozlamalari",
    back: "Bildirishnomalarga qaytish",
    allNotifications: "Barcha bildirishnomalar",
    channelNames: { email: "E-pochta", telegram: "Telegram", push: "Push", sms: "SMS", mobile: "Mobil ilova", discord: "Discord", msteams: "Microsoft Teams", slack: "Slack", whatsapp: "WhatsApp" },
    switchLabel: (row, channel) => `${row}: ${channel}`,
    saved: "Saqlandi",
    saveFailed: "Sozlamani saqlab bo‘lmadi",
    settingsLoadFailed: "Sozlamalarni yuklab bo‘lmadi",
    // Browsers' relative-time data for Uzbek is thin; these words are ours.
    relative: (n, unit) => {
      const words = { minute: "daqiqa", hour: "soat", day: "kun", week: "hafta", month: "oy", year: "yil" };
      return n <= 0 ? `${-n} ${words[unit]} oldin` : `${n} ${words[unit]}dan keyin`;
    },
  },
};

const PAGE_SIZE = 20;
const BACKOFF_INITIAL_MS = 1000;
const BACKOFF_MAX_MS = 30000;

const STYLE = `
:host {
  display: inline-block;
  position: relative;
  font: var(--chopar-bell-font, 14px/1.4 system-ui, sans-serif);
  color: var(--chopar-bell-color, #1f2937);
}
button { font: inherit; color: inherit; }
.bell {
  position: relative; display: inline-flex; align-items: center; justify-content: center;
  width: var(--chopar-bell-size, 40px); height: var(--chopar-bell-size, 40px);
  border: 0; border-radius: 50%; cursor: pointer;
  background: var(--chopar-bell-button-background, transparent);
  color: var(--chopar-bell-icon-color, currentColor);
}
.bell:hover { background: var(--chopar-bell-hover-background, rgba(0,0,0,.06)); }
.bell:focus-visible, .panel :focus-visible {
  outline: 2px solid var(--chopar-bell-accent, #2563eb); outline-offset: 2px;
}
.bell svg { width: 60%; height: 60%; }
.badge {
  position: absolute; top: 2px; right: 0; min-width: 18px; height: 18px; padding: 0 5px;
  box-sizing: border-box; border-radius: 9px; font-size: 11px; font-weight: 600; line-height: 18px;
  text-align: center; background: var(--chopar-bell-badge-background, #dc2626);
  color: var(--chopar-bell-badge-color, #fff);
}
.panel {
  position: absolute; z-index: var(--chopar-bell-z-index, 1000); top: calc(100% + 6px);
  right: 0; width: var(--chopar-bell-panel-width, 360px); max-width: 92vw;
  max-height: var(--chopar-bell-panel-height, 420px); display: flex; flex-direction: column;
  background: var(--chopar-bell-panel-background, #fff);
  border: 1px solid var(--chopar-bell-border-color, #e5e7eb);
  border-radius: var(--chopar-bell-radius, 10px);
  box-shadow: 0 10px 30px rgba(0,0,0,.15); overflow: hidden;
}
.panel.align-left { right: auto; left: 0; }
.panel[hidden] { display: none; }
.head {
  display: flex; align-items: center; justify-content: space-between; gap: 8px;
  padding: 10px 12px; border-bottom: 1px solid var(--chopar-bell-border-color, #e5e7eb);
}
.head h2 { margin: 0; font-size: 15px; }
.link-button {
  border: 0; background: none; cursor: pointer; padding: 2px 4px; border-radius: 4px;
  color: var(--chopar-bell-accent, #2563eb); font-size: 13px;
}
.link-button:disabled { color: var(--chopar-bell-muted-color, #9ca3af); cursor: default; }
.scroll { overflow-y: auto; flex: 1; }
ul { list-style: none; margin: 0; padding: 0; }
li { border-bottom: 1px solid var(--chopar-bell-border-color, #f3f4f6); }
.item {
  display: flex; gap: 10px; width: 100%; box-sizing: border-box; padding: 10px 12px;
  text-align: left; text-decoration: none; border: 0; background: none; cursor: pointer; color: inherit;
}
.item:hover { background: var(--chopar-bell-hover-background, rgba(0,0,0,.04)); }
.item[data-unread] { background: var(--chopar-bell-unread-background, #eff6ff); }
.dot {
  flex: none; width: 8px; height: 8px; margin-top: 6px; border-radius: 50%;
  background: var(--chopar-bell-accent, #2563eb);
}
.item:not([data-unread]) .dot { visibility: hidden; }
.text { min-width: 0; flex: 1; }
.title { display: block; font-weight: 600; overflow-wrap: anywhere; }
.body { display: block; color: var(--chopar-bell-muted-color, #4b5563); overflow-wrap: anywhere; }
.time { display: block; margin-top: 2px; font-size: 12px; color: var(--chopar-bell-muted-color, #6b7280); }
.empty, .status { margin: 0; padding: 16px 12px; text-align: center; color: var(--chopar-bell-muted-color, #6b7280); }
.status:empty { display: none; }
.push { padding: 8px 12px; border-bottom: 1px solid var(--chopar-bell-border-color, #e5e7eb); }
.push[hidden] { display: none; }
.foot { padding: 6px 12px; border-top: 1px solid var(--chopar-bell-border-color, #e5e7eb); text-align: center; }
.preferences { overflow-y: auto; flex: 1; padding: 4px 12px 12px; }
.preferences[hidden] { display: none; }
.preferences table { width: 100%; border-collapse: collapse; }
.preferences th, .preferences td { padding: 6px 4px; border-bottom: 1px solid var(--chopar-bell-border-color, #f3f4f6); }
.preferences th { font-size: 12px; font-weight: 600; color: var(--chopar-bell-muted-color, #4b5563); text-align: center; }
.preferences th[scope="row"] { text-align: left; font-size: 14px; color: inherit; overflow-wrap: anywhere; }
.preferences td { text-align: center; }
.preferences input { width: 18px; height: 18px; margin: 0; accent-color: var(--chopar-bell-accent, #2563eb); cursor: pointer; }
.visually-hidden {
  position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
`;

const BELL_ICON =
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" ' +
  'stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">' +
  '<path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9"/><path d="M13.73 21a2 2 0 0 1-3.46 0"/></svg>';

let nextInstance = 0;

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) node.append(child);
  return node;
}

// An internal path ("/tasks/1", not "//host", not "/\host", no scheme) made
// absolute against the host page; null for anything else.
export function internalUrl(link, base = document.baseURI) {
  const internal = typeof link === "string" && (link === "/" || /^\/[^/\\]/.test(link));
  if (!internal) return null;
  const url = new URL(link, base);
  return url.origin === new URL(base).origin ? url.href : null;
}

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

// Whether `channel` is on for notifications of `category` (null: the
// channel's own switch) under `preferences`, by the server's order: the
// category's channel, the category as a whole, the channel, the channel's
// default. `channels` is GET /v1/channels's list ({name, default, …}).
export function channelEnabled(preferences, channel, category, channels) {
  const entry = category && isObject(preferences.categories) ? preferences.categories[category] : undefined;
  if (isObject(entry) && typeof entry[channel] === "boolean") return entry[channel];
  if (typeof entry === "boolean") return entry;
  if (typeof preferences[channel] === "boolean") return preferences[channel];
  return channels.find((c) => c.name === channel)?.default === true;
}

// The PUT /v1/inbox/preferences body that sets one switch. `categories` is
// replaced whole by the server, so the body carries all of it; a category
// stored as one boolean is first spelled out per channel (`channels` as for
// channelEnabled), so the others keep their value.
export function preferenceChange(preferences, channel, category, on, channels) {
  if (!category) return { [channel]: on };
  const categories = isObject(preferences.categories) ? structuredClone(preferences.categories) : {};
  const entry = categories[category];
  const spelled = typeof entry === 'boolean' ?
      Object.fromEntries(channels.map((c) => [c.name, entry])) :
      isObject(entry) ? entry :
                        {};
  categories[category] = { ...spelled, [channel]: on };
  return { categories };
}

// Newest first: created_at descending, then id descending (the API's order).
function newerFirst(a, b) {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return b.id - a.id;
}

export class ChoparBell extends HTMLElement {
  static get observedAttributes() {
    return ["server", "token", "locale", "push", "categories", "tenant"];
  }

  constructor() {
    super();
    this._id = `chopar-bell-${++nextInstance}`;
    this._items = new Map(); // id → notification
    this._unread = 0;
    this._cursor = undefined; // undefined: first page not loaded; null: no more
    this._loadingPage = false;
    this._source = null;
    this._retryTimer = null;
    this._attempt = 0;
    this._connected = false;
    this._tenantName = null;  // the tenant's name once loaded (the tenant attribute)
    this._preferences = null; // the user's stored preferences once loaded
    this._channels = null;    // the server's channels (GET /v1/channels) once loaded
    this._saving = Promise.resolve(); // switches are saved one after another
    this._onDocumentPointer = (event) => {
      if (this.open && !event.composedPath().includes(this)) this.close({ returnFocus: false });
    };
    this._render();
  }

  // ---- public API ----------------------------------------------------------

  get open() {
    return !this._panel.hidden;
  }

  get unreadCount() {
    return this._unread;
  }

  show() {
    if (this.open) return;
    this._panel.hidden = false;
    // Open toward the side with room: a bell near the left edge opens rightwards.
    const room = this.getBoundingClientRect().right;
    this._panel.classList.toggle("align-left", room < this._panel.offsetWidth);
    this._button.setAttribute("aria-expanded", "true");
    document.addEventListener("pointerdown", this._onDocumentPointer, true);
    if (this._cursor === undefined) this._loadPage();
    this._observeEnd();
    this._panel.focus();
    this.dispatchEvent(new CustomEvent("chopar-bell-open", { bubbles: true, composed: true }));
  }

  close({ returnFocus = true } = {}) {
    if (!this.open) return;
    this._panel.hidden = true;
    this._button.setAttribute("aria-expanded", "false");
    this._showList();
    document.removeEventListener("pointerdown", this._onDocumentPointer, true);
    if (returnFocus) this._button.focus();
  }

  toggle() {
    this.open ? this.close() : this.show();
  }

  // ---- lifecycle -----------------------------------------------------------

  connectedCallback() {
    this._connected = true;
    this._applyTexts();
    this._start();
  }

  disconnectedCallback() {
    this._connected = false;
    this._stop();
    document.removeEventListener("pointerdown", this._onDocumentPointer, true);
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue || !this._connected) return;
    if (name === "locale") {
      this._applyTexts();
      this._renderList();
      this._renderPreferences();
      return;
    }
    if (name === "categories") {
      this._renderPreferences();
      return;
    }
    // A new server or user: start over.
    this._stop();
    this._preferences = null;
    this._channels = null;
    this._showList();
    this._items.clear();
    this._cursor = undefined;
    this._renderList();
    this._start();
  }

  // ---- texts and settings --------------------------------------------------

  get _locale() {
    const wanted = (this.getAttribute("locale") || document.documentElement.lang || "en").toLowerCase();
    return TEXTS[wanted] ? wanted : TEXTS[wanted.split("-")[0]] ? wanted.split("-")[0] : "en";
  }

  get _t() {
    return TEXTS[this._locale];
  }

  get _server() {
    const attribute = this.getAttribute("server");
    return (attribute || new URL(import.meta.url).origin).replace(/\/+$/, "");
  }

  get _token() {
    return this.getAttribute("token") || "";
  }

  // "&tenant=<key>" with the tenant attribute, else "".
  get _tenantQuery() {
    const tenant = this.getAttribute("tenant");
    return tenant ? `&tenant=${encodeURIComponent(tenant)}` : "";
  }

  // ---- DOM -----------------------------------------------------------------

  _render() {
    const root = this.attachShadow({ mode: "open", delegatesFocus: false });
    const style = el("style");
    style.textContent = STYLE;
    this._button = el("button", {
      type: "button",
      class: "bell",
      part: "button",
      "aria-haspopup": "dialog",
      "aria-expanded": "false",
      "aria-controls": `${this._id}-panel`,
    });
    this._button.innerHTML = BELL_ICON; // a constant: no data is ever parsed as HTML
    this._badge = el("span", { class: "badge", part: "badge", "aria-hidden": "true", hidden: true });
    this._button.append(this._badge);
    this._button.addEventListener("click", () => this.toggle());

    this._heading = el("h2", { id: `${this._id}-title`, part: "title" });
    this._markAll = el("button", { type: "button", class: "link-button", part: "mark-all" });
    this._markAll.addEventListener("click", () => this._markAllRead());
    this._settingsButton = el("button", {
      type: "button",
      class: "link-button",
      part: "settings",
      "aria-expanded": "false",
      "aria-controls": `${this._id}-preferences`,
    });
    this._settingsButton.addEventListener("click", () => (this._preferencesView.hidden ? this._showPreferences() : this._showList()));
    this._preferencesTable = el("table");
    this._preferencesStatus = el("p", { class: "status", role: "status", "aria-live": "polite" });
    this._preferencesView = el(
      "div",
      { id: `${this._id}-preferences`, class: "preferences", part: "preferences", hidden: true },
      this._preferencesTable,
      this._preferencesStatus,
    );
    this._preferencesView.addEventListener("change", (event) => this._onSwitch(event));
    this._pushBox = el("div", { class: "push", part: "push", hidden: true });
    this._list = el("ul", { part: "list", role: "list" });
    this._list.addEventListener("click", (event) => this._onItemClick(event));
    this._end = el("div", { "aria-hidden": "true" });
    this._empty = el("p", { class: "empty", part: "empty", hidden: true });
    this._status = el("p", { class: "status", role: "status", "aria-live": "polite" });
    this._scroll = el("div", { class: "scroll" }, this._list, this._empty, this._end, this._status);
    this._panel = el(
      "div",
      {
        id: `${this._id}-panel`,
        class: "panel",
        part: "panel",
        role: "dialog",
        "aria-labelledby": `${this._id}-title`,
        tabindex: "-1",
        hidden: true,
      },
      el("div", { class: "head", part: "header" }, this._heading, this._markAll),
      this._pushBox,
      this._scroll,
      this._preferencesView,
      el("div", { class: "foot", part: "footer" }, this._settingsButton),
    );
    this._panel.addEventListener("keydown", (event) => this._onPanelKey(event));
    this._button.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.open) {
        event.preventDefault();
        this.close();
      }
    });
    this._announcer = el("span", { class: "visually-hidden", "aria-live": "polite" });
    root.append(style, this._button, this._panel, this._announcer);
  }

  _applyTexts() {
    const t = this._t;
    this._heading.textContent = this._preferencesView.hidden ? this._tenantName || t.notifications : t.settings;
    this._settingsButton.textContent = this._preferencesView.hidden ? t.settings : t.back;
    this._markAll.textContent = t.markAll;
    this._empty.textContent = t.empty;
    this._updateBadge();
  }

  _updateBadge() {
    const n = this._unread;
    this._badge.hidden = n === 0;
    this._badge.textContent = n > 99 ? "99+" : String(n);
    this._button.setAttribute("aria-label", `${this._t.notifications}, ${this._t.unread(n)}`);
    this._markAll.disabled = n === 0;
    this.setAttribute("data-unread", String(n));
  }

  _setUnread(count) {
    this._unread = Math.max(0, count);
    this._updateBadge();
  }

  _relativeTime(iso) {
    const seconds = (new Date(iso).getTime() - Date.now()) / 1000;
    if (Math.abs(seconds) < 60) return this._t.justNow;
    const units = [
      ["minute", 60],
      ["hour", 3600],
      ["day", 86400],
      ["week", 604800],
      ["month", 2629800],
      ["year", 31557600],
    ];
    let [unit, size] = units[0];
    for (const [name, length] of units) if (Math.abs(seconds) >= length) [unit, size] = [name, length];
    const n = Math.round(seconds / size);
    if (this._t.relative) return this._t.relative(n, unit);
    return new Intl.RelativeTimeFormat(this._locale, { numeric: "auto" }).format(n, unit);
  }

  _renderItem(item) {
    const url = item.link ? internalUrl(item.link) : null;
    const unread = !item.read_at;
    const time = el("time", { class: "time", datetime: item.created_at, title: new Date(item.created_at).toLocaleString(this._locale) });
    time.textContent = this._relativeTime(item.created_at);
    const title = el("span", { class: "title" });
    title.textContent = item.title;
    const text = el("span", { class: "text" }, title);
    if (item.body) {
      const body = el("span", { class: "body" });
      body.textContent = item.body;
      text.append(body);
    }
    text.append(time);
    const dot = el("span", { class: "dot" });
    if (unread) dot.append(el("span", { class: "visually-hidden" }, this._t.unreadMarker));
    const control = url
      ? el("a", { class: "item", part: unread ? "item unread" : "item", href: url, "data-unread": unread })
      : el("button", { type: "button", class: "item", part: unread ? "item unread" : "item", "data-unread": unread });
    control.dataset.id = String(item.id);
    control.append(dot, text);
    return el("li", { "data-id": item.id }, control);
  }

  _renderList() {
    const items = [...this._items.values()].sort(newerFirst);
    this._list.replaceChildren(...items.map((item) => this._renderItem(item)));
    this._empty.hidden = items.length > 0 || this._cursor === undefined;
  }

  // ---- data ----------------------------------------------------------------

  // The server's channels (GET /v1/channels: no token, so no preflight),
  // fetched once.
  async _channelList() {
    if (!this._channels) {
      const response =
          await fetch(`${this._server}/v1/channels`, {mode: 'cors', credentials: 'omit'});
      if (!response.ok) throw new Error(`${response.status} /v1/channels`);
      this._channels = (await response.json()).channels;
    }
    return this._channels;
  }

  async _api(path, options = {}) {
    const response = await fetch(`${this._server}${path}`, {
      ...options,
      headers: { Authorization: `Bearer ${this._token}`, ...(options.body ? { "Content-Type": "application/json" } : {}) },
      mode: "cors",
      credentials: "omit",
    });
    if (!response.ok) {
      const error = new Error(`${response.status} ${path}`);
      error.status = response.status;
      throw error;
    }
    return response.status === 204 ? null : response.json();
  }

  _merge(items) {
    let added = 0;
    for (const item of items) {
      if (!this._items.has(item.id)) added++;
      this._items.set(item.id, item);
    }
    return added;
  }

  async _loadPage() {
    if (this._loadingPage || this._cursor === null) return;
    this._loadingPage = true;
    if (this._items.size === 0) this._status.textContent = this._t.loading;
    try {
      const cursor = this._cursor ? `&cursor=${encodeURIComponent(this._cursor)}` : "";
      const page = await this._api(`/v1/inbox/notifications?limit=${PAGE_SIZE}${cursor}${this._tenantQuery}`);
      this._merge(page.items);
      this._cursor = page.next_cursor;
      this._status.textContent = "";
      this._renderList();
    } catch (error) {
      this._status.textContent = this._t.loadFailed;
      return;
    } finally {
      this._loadingPage = false;
    }
    // An observer reports only changes it sees at a rendering step: when the
    // end stayed in view while this page loaded, or the list grew and was
    // scrolled back to its end before the next frame, no change is seen and
    // nothing asks for the next page. Observing again reports where the end
    // is now.
    if (this._cursor && this._observer) {
      this._observer.unobserve(this._end);
      this._observer.observe(this._end);
    }
  }

  // After a reconnect: whatever arrived meanwhile is on the first page; the
  // map keeps each id once however often it is seen.
  async _resync() {
    try {
      const page = await this._api(`/v1/inbox/notifications?limit=${PAGE_SIZE}${this._tenantQuery}`);
      if (this._cursor === undefined) this._cursor = page.next_cursor;
      this._merge(page.items);
      this._renderList();
    } catch {
      // The stream's next reconnect tries again.
    }
  }

  _observeEnd() {
    if (this._observer || !("IntersectionObserver" in window)) return;
    this._observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting) && this._cursor) this._loadPage();
      },
      { root: this._scroll, rootMargin: "80px" },
    );
    this._observer.observe(this._end);
  }

  async _markRead(ids) {
    const now = new Date().toISOString();
    let changed = 0;
    for (const id of ids) {
      const item = this._items.get(id);
      if (item && !item.read_at) {
        item.read_at = now;
        changed++;
      }
    }
    if (changed) {
      this._setUnread(this._unread - changed);
      this._renderList();
    }
    const result = await this._api("/v1/inbox/read", { method: "POST", body: JSON.stringify({ ids }) });
    return result.updated;
  }

  async _markAllRead() {
    const now = new Date().toISOString();
    for (const item of this._items.values()) if (!item.read_at) item.read_at = now;
    this._setUnread(0);
    this._renderList();
    try {
      await this._api("/v1/inbox/read", { method: "POST", body: JSON.stringify({ all: true }) });
    } catch {
      this._status.textContent = this._t.loadFailed;
    }
  }

  async _onItemClick(event) {
    const control = event.target.closest(".item");
    if (!control) return;
    const id = Number(control.dataset.id);
    const href = control.tagName === "A" ? control.href : null;
    // Modified clicks (new tab, download) keep the browser's own behaviour.
    if (href && (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey || event.button !== 0)) {
      this._markRead([id]).catch(() => {});
      return;
    }
    event.preventDefault();
    try {
      await this._markRead([id]);
    } catch {
      // Following the link matters more than the read marker.
    }
    this.dispatchEvent(new CustomEvent("chopar-bell-select", { bubbles: true, composed: true, detail: { id, href } }));
    if (href) window.location.assign(href);
  }

  _onPanelKey(event) {
    if (event.key === "Escape") {
      event.preventDefault();
      this.close();
      return;
    }
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const controls = [...this._list.querySelectorAll(".item")];
    if (controls.length === 0) return;
    const index = controls.indexOf(this.shadowRoot.activeElement);
    const next = event.key === "ArrowDown" ? Math.min(controls.length - 1, index + 1) : Math.max(0, index - 1);
    event.preventDefault();
    controls[next].focus();
  }

  // ---- preferences --------------------------------------------------------

  // The categories to offer: the `categories` attribute's, then any other
  // the user has settings for.
  get _categories() {
    const named = (this.getAttribute("categories") || "").split(/[\s,]+/).filter(Boolean);
    const stored = this._preferences && isObject(this._preferences.categories) ? Object.keys(this._preferences.categories).sort() : [];
    return [...new Set([...named, ...stored])];
  }

  async _showPreferences() {
    this._preferencesView.hidden = false;
    this._scroll.hidden = true;
    this._markAll.hidden = true;
    this._settingsButton.setAttribute("aria-expanded", "true");
    this._applyTexts();
    this._renderPreferences();
    try {
      [this._channels, this._preferences] =
          await Promise.all([this._channelList(), this._api('/v1/inbox/preferences')]);
      this._preferencesStatus.textContent = "";
    } catch {
      this._preferencesStatus.textContent = this._t.settingsLoadFailed;
    }
    this._renderPreferences();
  }

  _showList() {
    if (!this._preferencesView || this._preferencesView.hidden) return;
    this._preferencesView.hidden = true;
    this._scroll.hidden = false;
    this._markAll.hidden = false;
    this._settingsButton.setAttribute("aria-expanded", "false");
    this._preferencesStatus.textContent = "";
    this._applyTexts();
  }

  _renderPreferences() {
    if (this._preferencesView.hidden) return;
    const t = this._t;
    if (!this._preferences || !this._channels) {
      this._preferencesTable.replaceChildren();
      return;
    }
    const channels = this._channels.map((c) => c.name);
    // A channel this version has no word for is shown by its name.
    const channelName = (channel) => t.channelNames[channel] ?? channel;
    const head = el("tr", {}, el("td"));
    for (const channel of channels) head.append(el('th', {scope: 'col'}, channelName(channel)));
    const rows = [[null, t.allNotifications], ...this._categories.map((category) => [category, category])];
    const body = rows.map(([category, label]) => {
      const row = el("tr", {}, el("th", { scope: "row" }, label));
      for (const channel of channels) {
        const input = el('input', {
          type: 'checkbox',
          role: 'switch',
          'aria-label': t.switchLabel(label, channelName(channel)),
          'data-channel': channel,
          'data-category': category ?? '',
        });
        input.checked = channelEnabled(this._preferences, channel, category, this._channels);
        row.append(el("td", {}, input));
      }
      return row;
    });
    // Rebuilt after each save: the switch that had the focus keeps it.
    const focused = this.shadowRoot.activeElement?.matches?.("input[data-channel]") ? this.shadowRoot.activeElement.dataset : null;
    this._preferencesTable.replaceChildren(el("thead", {}, head), el("tbody", {}, ...body));
    if (focused) {
      this._preferencesTable.querySelector(`input[data-channel="${focused.channel}"][data-category="${CSS.escape(focused.category)}"]`)?.focus();
    }
  }

  _onSwitch(event) {
    const input = event.target;
    if (!input.matches("input[data-channel]")) return;
    const { channel, category } = input.dataset;
    const on = input.checked;
    // One save at a time, each computed from the answer to the one before:
    // `categories` is sent whole, so two at once could undo each other.
    this._saving = this._saving.then(async () => {
      try {
        const change =
            preferenceChange(this._preferences, channel, category || null, on, this._channels);
        this._preferences = await this._api("/v1/inbox/preferences", { method: "PUT", body: JSON.stringify(change) });
        this._preferencesStatus.textContent = this._t.saved;
        this.dispatchEvent(new CustomEvent("chopar-bell-preferences", { bubbles: true, composed: true, detail: this._preferences }));
      } catch {
        this._preferencesStatus.textContent = this._t.saveFailed;
      }
      this._renderPreferences();
    });
  }

  // ---- live updates --------------------------------------------------------

  _start() {
    if (!this._token) return;
    this._tenantName = null;
    if (this.getAttribute("tenant")) this._loadTenant();
    this._refreshCount();
    this._connect();
    if (this.hasAttribute("push")) this._offerPush();
  }

  _stop() {
    if (this._source) this._source.close();
    this._source = null;
    clearTimeout(this._retryTimer);
    this._retryTimer = null;
  }

  async _loadTenant() {
    try {
      const tenant = await this._api(`/v1/inbox/tenants/${encodeURIComponent(this.getAttribute("tenant"))}`);
      this._tenantName = tenant.name;
      this._applyTexts();
    } catch {
      // Not the user's tenant, or offline: the heading stays the default.
    }
  }

  async _refreshCount() {
    try {
      const tenant = this._tenantQuery;
      const { count } = await this._api(`/v1/inbox/unread-count${tenant ? `?${tenant.slice(1)}` : ""}`);
      this._setUnread(count);
    } catch {
      // The stream's first event carries the count too.
    }
  }

  _connect() {
    const url = `${this._server}/v1/inbox/stream?token=${encodeURIComponent(this._token)}${this._tenantQuery}`;
    const source = new EventSource(url);
    this._source = source;
    const reconnecting = this._attempt > 0;
    source.addEventListener("open", () => {
      this._attempt = 0;
      this.removeAttribute("data-offline");
      if (this._status.textContent === this._t.offline) this._status.textContent = "";
      if (reconnecting) this._resync();
    });
    source.addEventListener("unread_count", (event) => {
      this._setUnread(JSON.parse(event.data).count);
    });
    source.addEventListener("notification", (event) => {
      const item = JSON.parse(event.data);
      if (this._merge([item]) > 0) {
        this._renderList();
        this._announcer.textContent = this._t.newItem(item.title);
        this.dispatchEvent(new CustomEvent("chopar-bell-notification", { bubbles: true, composed: true, detail: item }));
      }
    });
    source.addEventListener("error", () => {
      // The browser's own retry has no back-off and, on a new connection,
      // no memory of what was shown: close and reconnect here instead.
      if (this._source !== source) return;
      source.close();
      this._source = null;
      this.setAttribute("data-offline", "");
      if (this.open && this._items.size === 0) this._status.textContent = this._t.offline;
      const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** this._attempt);
      const delay = ceiling / 2 + Math.random() * (ceiling / 2);
      this._attempt++;
      this._retryTimer = setTimeout(() => {
        this._retryTimer = null;
        if (this._connected) this._connect();
      }, delay);
    });
  }

  // ---- Web Push opt-in ----------------------------------------------------

  async _offerPush() {
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return;
    let key;
    try {
      key = (await this._api("/v1/inbox/vapid-public-key")).public_key;
    } catch {
      return; // 404: the server has no Web Push keys
    }
    const button = el("button", { type: "button", class: "link-button" });
    const note = el("span");
    this._pushBox.replaceChildren(button, note);
    const show = (state) => {
      button.hidden = state !== "offer";
      note.textContent = state === "on" ? this._t.pushOn : state === "denied" ? this._t.pushDenied : "";
      button.textContent = this._t.enablePush;
    };
    const registration = await navigator.serviceWorker.getRegistration(this._workerUrl()).catch(() => null);
    const existing = registration ? await registration.pushManager.getSubscription() : null;
    show(Notification.permission === "denied" ? "denied" : existing ? "on" : "offer");
    this._pushBox.hidden = false;
    button.addEventListener("click", async () => {
      try {
        if ((await Notification.requestPermission()) !== "granted") return show("denied");
        const worker = await navigator.serviceWorker.register(this._workerUrl());
        await navigator.serviceWorker.ready;
        const subscription = await worker.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: base64UrlToBytes(key),
        });
        await this._api("/v1/inbox/push-subscriptions", { method: "POST", body: JSON.stringify(subscription.toJSON()) });
        show("on");
      } catch (error) {
        note.textContent = String(error.message || error);
      }
    });
  }

  _workerUrl() {
    return this.getAttribute("sw") || `${this._server}/widget/chopar-sw.js`;
  }
}

function base64UrlToBytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

if (!customElements.get("chopar-bell")) customElements.define("chopar-bell", ChoparBell);
