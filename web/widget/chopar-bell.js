// <chopar-bell>: chopar's in-app inbox as a framework-free custom element,
// drawn on the headless client of chopar-client.js (all its calls and its
// live events go through that client).
//
//   <script type="module" src="https://chopar.example/widget/chopar-bell.js"></script>
//   <chopar-bell server="https://chopar.example" token="v2.42.0.1801234567.mX…" locale="uz"
//   push></chopar-bell>
//
// `token` is a subscriber token the host application's backend got from
// GET /v1/users/{id}/token. Everything lives in a shadow root (no global CSS
// in or out); the look is set with CSS custom properties (--chopar-bell-*)
// and ::part(button | badge | panel | header | title | mark-all | tabs | tab
// | list | item | unread | unseen | tools | actions | action | empty | push
// | footer | archived | snoozed | settings | preferences). Attributes:
//   server  chopar's base URL (default: the origin this script came from)
//   token   the subscriber token (required)
//   locale  "uz", "en" or "ru" (default: the page's <html lang>, else "en")
//   count   what the badge counts: "unseen" (default: not yet on screen in
//           an opened bell) or "unread"
//   tabs    a JSON list of tabs shown after "All", each with its count:
//           '[{"label":"Tasks","category":"tasks"},{"label":"Billing","tag":"billing"}]'
//           (`category`: a name or a list of names; `tag`: one tag)
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
// Opening the bell marks the notifications it shows seen. Each item has its
// tools (mark read or unread, archive or unarchive, snooze for an hour,
// until tomorrow or next week) and its actions (a link is followed, an event
// is pressed once: POST /v1/inbox/notifications/{id}/actions/{n}); the foot
// of the panel switches to the archived notifications (each with its
// unarchive tool) or to the snoozed ones (each saying when it comes back,
// with its unsnooze tool). A change made elsewhere (another tab, the
// application's server key, a snooze running out) reaches an open bell as a
// `state` event and is shown at once, in whichever view it is.
//
// The settings view (the button at the panel's foot) shows the user's own
// preferences (GET/PUT /v1/inbox/preferences) as switches: all
// notifications, then each category, by channel — the server's channels
// (GET /v1/channels), each on by its own default until the user says.

import { ChoparClient } from "./chopar-client.js";

// Russian counts: one form after 1, 21, 31… (not 11), another after the rest.
const ruCount = (n, one, many) => (n % 10 === 1 && n % 100 !== 11 ? `${n} ${one}` : `${n} ${many}`);

const TEXTS = {
  en: {
    notifications: "Notifications",
    unread: (n) => (n === 0 ? "no unread" : n === 1 ? "1 unread" : `${n} unread`),
    unseen: (n) => (n === 0 ? "no new" : `${n} new`),
    markAll: "Mark all as read",
    empty: "No notifications yet",
    archivedEmpty: "No archived notifications",
    snoozedEmpty: "No snoozed notifications",
    loading: "Loading…",
    loadFailed: "Could not load notifications",
    changeFailed: "Could not save the change",
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
    archived: "Archived",
    snoozedView: "Snoozed",
    all: "All",
    toolsFor: (title) => `Actions for ${title}`,
    markRead: "Mark as read",
    markUnread: "Mark as unread",
    archive: "Archive",
    unarchive: "Unarchive",
    snooze: "Snooze",
    snoozeFor: { hour: "1 hour", tomorrow: "Tomorrow", week: "Next week" },
    snoozed: (title) => `Snoozed: ${title}`,
    unsnooze: "Unsnooze",
    unsnoozed: (title) => `Back in the list: ${title}`,
    comesBack: (when) => `Comes back ${when}`,
    soon: "in a moment",
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
    unseen: (n) => (n === 0 ? "yangi yo‘q" : `${n} ta yangi`),
    markAll: "Hammasini o‘qildi deb belgilash",
    empty: "Hozircha bildirishnoma yo‘q",
    archivedEmpty: "Arxiv bo‘sh",
    snoozedEmpty: "Keyinroqqa qoldirilgan bildirishnoma yo‘q",
    loading: "Yuklanmoqda…",
    loadFailed: "Bildirishnomalarni yuklab bo‘lmadi",
    changeFailed: "O‘zgarishni saqlab bo‘lmadi",
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
    archived: "Arxiv",
    snoozedView: "Keyinroqqa qoldirilganlar",
    all: "Hammasi",
    toolsFor: (title) => `${title}: amallar`,
    markRead: "O‘qildi deb belgilash",
    markUnread: "O‘qilmagan deb belgilash",
    archive: "Arxivlash",
    unarchive: "Arxivdan chiqarish",
    snooze: "Keyinroq eslatish",
    snoozeFor: { hour: "1 soatdan keyin", tomorrow: "Ertaga", week: "Keyingi hafta" },
    snoozed: (title) => `Keyinroqqa qoldirildi: ${title}`,
    unsnooze: "Hozir qaytarish",
    unsnoozed: (title) => `Ro‘yxatga qaytdi: ${title}`,
    comesBack: (when) => `Qaytadi: ${when}`,
    soon: "bir daqiqa ichida",
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
  ru: {
    notifications: "Уведомления",
    unread: (n) => (n === 0 ? "нет непрочитанных" : ruCount(n, "непрочитанное", "непрочитанных")),
    unseen: (n) => (n === 0 ? "нет новых" : ruCount(n, "новое", "новых")),
    markAll: "Отметить все как прочитанные",
    empty: "Уведомлений пока нет",
    archivedEmpty: "В архиве пусто",
    snoozedEmpty: "Нет отложенных уведомлений",
    loading: "Загрузка…",
    loadFailed: "Не удалось загрузить уведомления",
    changeFailed: "Не удалось сохранить изменение",
    offline: "Переподключение…",
    newItem: (title) => `Новое уведомление: ${title}`,
    unreadMarker: "Непрочитанное",
    enablePush: "Включить push-уведомления",
    pushOn: "Push-уведомления включены",
    pushDenied: "Push-уведомления заблокированы в этом браузере",
    close: "Закрыть",
    justNow: "только что",
    settings: "Настройки уведомлений",
    back: "Назад к уведомлениям",
    archived: "Архив",
    snoozedView: "Отложенные",
    all: "Все",
    toolsFor: (title) => `Действия: ${title}`,
    markRead: "Отметить прочитанным",
    markUnread: "Отметить непрочитанным",
    archive: "В архив",
    unarchive: "Вернуть из архива",
    snooze: "Отложить",
    snoozeFor: { hour: "На 1 час", tomorrow: "До завтра", week: "До следующей недели" },
    snoozed: (title) => `Отложено: ${title}`,
    unsnooze: "Вернуть сейчас",
    unsnoozed: (title) => `Снова в списке: ${title}`,
    comesBack: (when) => `Вернётся ${when}`,
    soon: "в течение минуты",
    allNotifications: "Все уведомления",
    channelNames: { email: "Эл. почта", telegram: "Telegram", push: "Push", sms: "SMS", mobile: "Мобильное приложение", discord: "Discord", msteams: "Microsoft Teams", slack: "Slack", whatsapp: "WhatsApp" },
    switchLabel: (row, channel) => `${row}: ${channel}`,
    saved: "Сохранено",
    saveFailed: "Не удалось сохранить настройку",
    settingsLoadFailed: "Не удалось загрузить настройки",
  },
};

const PAGE_SIZE = 20;
const MAX_TABS = 10;
// Snoozing "tomorrow" and "next week" wakes the user at this local hour.
const MORNING_HOUR = 9;

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
.tabs {
  display: flex; gap: 2px; padding: 0 8px; overflow-x: auto;
  border-bottom: 1px solid var(--chopar-bell-border-color, #e5e7eb);
}
.tabs[hidden] { display: none; }
.tab {
  border: 0; background: none; cursor: pointer; padding: 8px 8px 6px; font-size: 13px; white-space: nowrap;
  border-bottom: 2px solid transparent; color: var(--chopar-bell-muted-color, #4b5563);
}
.tab[aria-selected="true"] { color: inherit; font-weight: 600; border-bottom-color: var(--chopar-bell-accent, #2563eb); }
.tab-count {
  display: inline-block; min-width: 16px; margin-left: 4px; padding: 0 4px; border-radius: 8px; box-sizing: border-box;
  font-size: 11px; line-height: 16px; text-align: center;
  background: var(--chopar-bell-tab-count-background, #e5e7eb);
}
.tab-count:empty { display: none; }
li { position: relative; }
li[data-unread] { background: var(--chopar-bell-unread-background, #eff6ff); }
li[data-unread] .item { background: none; }
.below { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; padding: 0 8px 6px 30px; margin-top: -6px; }
.actions { display: flex; flex-wrap: wrap; gap: 6px; }
.action {
  display: inline-block; padding: 3px 10px; border-radius: 6px; font-size: 13px; cursor: pointer; text-decoration: none;
  border: 1px solid var(--chopar-bell-accent, #2563eb); background: var(--chopar-bell-panel-background, #fff);
  color: var(--chopar-bell-accent, #2563eb);
}
.action.primary { background: var(--chopar-bell-accent, #2563eb); color: var(--chopar-bell-action-color, #fff); }
.action[data-pressed] { cursor: default; opacity: .7; }
.tools { display: flex; flex-wrap: wrap; gap: 2px; margin-left: auto; position: relative; }
.tool {
  display: inline-flex; align-items: center; justify-content: center; width: 26px; height: 26px; padding: 0;
  border: 0; border-radius: 50%; background: none; cursor: pointer; color: var(--chopar-bell-muted-color, #6b7280);
}
.tool svg { width: 16px; height: 16px; }
.tool:hover { background: var(--chopar-bell-hover-background, rgba(0,0,0,.06)); }
.tool:hover { color: var(--chopar-bell-accent, #2563eb); }
.menu {
  position: absolute; z-index: 1; right: 0; top: 100%; min-width: 150px; padding: 4px 0; margin: 2px 0 0;
  background: var(--chopar-bell-panel-background, #fff); border: 1px solid var(--chopar-bell-border-color, #e5e7eb);
  border-radius: 6px; box-shadow: 0 6px 16px rgba(0,0,0,.15);
}
.menu[hidden] { display: none; }
.menu button { display: block; width: 100%; border: 0; background: none; cursor: pointer; text-align: left; padding: 6px 12px; font-size: 13px; }
.menu button:hover, .menu button:focus { background: var(--chopar-bell-hover-background, rgba(0,0,0,.06)); }
.foot { display: flex; justify-content: space-between; }
.views { display: flex; gap: 4px; }
.time.back { color: var(--chopar-bell-accent, #2563eb); }
`;
const BELL_ICON =
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" ' +
  'stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">' +
  '<path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9"/><path d="M13.73 21a2 2 0 0 1-3.46 0"/></svg>';

// The items' tools, drawn as icons (constants: no data is parsed as HTML);
// each button's name is its aria-label.
const icon = (paths) =>
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" ' +
  `stroke-linejoin="round" aria-hidden="true" focusable="false">${paths}</svg>`;
const TOOL_ICONS = {
  read: icon('<path d="M20 6 9 17l-5-5"/>'),
  unread: icon('<circle cx="12" cy="12" r="4" fill="currentColor"/>'),
  archive: icon('<rect x="3" y="4" width="18" height="4" rx="1"/><path d="M5 8v11h14V8"/><path d="M10 12h4"/>'),
  unarchive: icon('<rect x="3" y="4" width="18" height="4" rx="1"/><path d="M5 8v11h14V8"/><path d="M12 17v-6m-3 3 3-3 3 3"/>'),
  snooze: icon('<circle cx="12" cy="13" r="8"/><path d="M12 9v4l2 2M5 3 2 6m17-3 3 3"/>'),
  unsnooze: icon('<circle cx="12" cy="13" r="8"/><path d="M12 9v4l2 2M5 3 2 6m17-3 3 3M4 21 20 5"/>'),
};

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

// Whether a tab ({category, tag}; null for "All") takes `item`.
function inTab(item, tab) {
  if (!tab) return true;
  if (tab.category) {
    const names = Array.isArray(tab.category) ? tab.category : String(tab.category).split(",");
    if (!names.includes(item.category)) return false;
  }
  return !tab.tag || (Array.isArray(item.tags) && item.tags.includes(tab.tag));
}

// Whether `item` is snoozed now: a snooze whose time has passed is over
// (the item is on its way back).
function isSnoozed(item, now = Date.now()) {
  return Boolean(item.snoozed_until) && Date.parse(item.snoozed_until) > now;
}

// Whether the server would list `item` in `view` ("inbox": neither archived
// nor snoozed; "archived": archived ones, "snoozed": snoozed ones, neither
// the other) under `tab`.
export function inView(item, view, tab, now = Date.now()) {
  const snoozed = isSnoozed(item, now);
  const archived = Boolean(item.archived_at);
  const placed = view === "archived" ? archived && !snoozed : view === "snoozed" ? snoozed && !archived : !archived && !snoozed;
  return placed && inTab(item, tab);
}

// What `item` adds to the counts: the server counts neither archived nor
// snoozed notifications.
function countsOf(item, now = Date.now()) {
  if (!inView(item, "inbox", null, now)) return { unseen: 0, unread: 0 };
  return { unseen: item.seen_at ? 0 : 1, unread: item.read_at ? 0 : 1 };
}

// A state change (a `state` event's `change`, or one made here) applied to a
// notification object as the server applies it.
export function applyState(item, change, at, snoozedUntil = null) {
  switch (change) {
    case "seen":
      item.seen_at ??= at;
      break;
    case "read":
      item.read_at ??= at;
      item.seen_at ??= at;
      break;
    case "unread":
      item.read_at = null;
      break;
    case "archived":
      item.archived_at ??= at;
      break;
    case "unarchived":
      item.archived_at = null;
      break;
    case "snoozed":
      item.snoozed_until = snoozedUntil;
      break;
    case "unsnoozed":
      item.snoozed_until = null;
      break;
  }
}

// The snooze request for a menu choice: an hour from now, tomorrow morning,
// or next Monday morning (the user's own clock).
export function snoozeTarget(choice, now = new Date()) {
  if (choice === "hour") return { minutes: 60 };
  const until = new Date(now);
  const days = choice === "week" ? (8 - until.getDay()) % 7 || 7 : 1;
  until.setDate(until.getDate() + days);
  until.setHours(MORNING_HOUR, 0, 0, 0);
  return { until };
}

// The `tabs` attribute's tabs (at most MAX_TABS; a malformed one is skipped),
// after "All".
function parseTabs(text) {
  if (!text) return [];
  let tabs;
  try {
    tabs = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(tabs)) return [];
  return tabs
    .filter((tab) => isObject(tab) && typeof tab.label === "string" && (tab.category || tab.tag))
    .slice(0, MAX_TABS)
    .map(({ label, category, tag }) => ({ label, category: category || undefined, tag: tag || undefined }));
}

export class ChoparBell extends HTMLElement {
  static get observedAttributes() {
    return ["server", "token", "locale", "push", "categories", "tenant", "count", "tabs"];
  }

  constructor() {
    super();
    this._id = `chopar-bell-${++nextInstance}`;
    this._client = null; // the ChoparClient of the current server, token and tenant
    this._items = new Map(); // id → notification, of every view loaded
    this._pages = new Map(); // "<view>|<tab>" → {cursor, loading}; cursor undefined: not loaded, null: no more
    this._view = "inbox"; // or "archived", "snoozed"
    this._tabIndex = 0; // 0 is "All"
    this._tabs = [];
    this._tabCounts = [];
    this._counts = { unseen: 0, unread: 0 };
    this._openMenu = null; // the id of the item whose snooze menu is open
    this._tabCountsTimer = null;
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
    return this._counts.unread;
  }

  get unseenCount() {
    return this._counts.unseen;
  }

  // The ChoparClient the bell uses (null before it has a token).
  get client() {
    return this._client;
  }

  show() {
    if (this.open) return;
    this._panel.hidden = false;
    // Open toward the side with room: a bell near the left edge opens rightwards.
    const room = this.getBoundingClientRect().right;
    this._panel.classList.toggle("align-left", room < this._panel.offsetWidth);
    this._button.setAttribute("aria-expanded", "true");
    document.addEventListener("pointerdown", this._onDocumentPointer, true);
    if (this._page().cursor === undefined) this._loadPage();
    else this._renderList(); // marks what it shows seen
    this._refreshTabCounts();
    this._observeEnd();
    this._panel.focus();
    this.dispatchEvent(new CustomEvent("chopar-bell-open", { bubbles: true, composed: true }));
  }

  close({ returnFocus = true } = {}) {
    if (!this.open) return;
    this._panel.hidden = true;
    this._button.setAttribute("aria-expanded", "false");
    this._openMenu = null;
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
    this._readTabs();
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
    if (name === "count") {
      this._updateBadge();
      this._refreshTabCounts();
      return;
    }
    if (name === "tabs") {
      this._readTabs();
      this._applyTexts();
      this._renderList();
      if (this.open && this._page().cursor === undefined) this._loadPage();
      this._refreshTabCounts();
      return;
    }
    if (name === "push") return;
    // A new server, user or tenant: start over.
    this._stop();
    this._preferences = null;
    this._channels = null;
    this._showList();
    this._items.clear();
    this._pages.clear();
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

  // What the badge counts: "unseen" unless count="unread".
  get _countKind() {
    return this.getAttribute("count") === "unread" ? "unread" : "unseen";
  }

  get _tab() {
    return this._tabIndex > 0 ? this._tabs[this._tabIndex - 1] : null;
  }

  // The paging state of the view and tab on screen.
  _page() {
    const key = `${this._view}|${this._tabIndex}`;
    if (!this._pages.has(key)) this._pages.set(key, { cursor: undefined, loading: false });
    return this._pages.get(key);
  }

  // The list filters of the view and tab on screen.
  _filters() {
    const tab = this._tab;
    return { archived: this._view === "archived", snoozed: this._view === "snoozed", category: tab?.category, tag: tab?.tag };
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
    this._tabBar = el("div", { class: "tabs", part: "tabs", role: "tablist", hidden: true });
    this._tabBar.addEventListener("click", (event) => {
      const tab = event.target.closest("[role=tab]");
      if (tab) this._selectTab(Number(tab.dataset.index));
    });
    this._tabBar.addEventListener("keydown", (event) => this._onTabKey(event));
    // The other views, each a toggle back to the inbox.
    this._viewButtons = {};
    for (const view of ["archived", "snoozed"]) {
      const button = el("button", { type: "button", class: "link-button", part: view, "aria-pressed": "false" });
      button.addEventListener("click", () => this._setView(this._view === view ? "inbox" : view));
      this._viewButtons[view] = button;
    }
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
    this._list.addEventListener("click", (event) => this._onListClick(event));
    this._list.addEventListener("keydown", (event) => this._onMenuKey(event));
    this._end = el("div", { "aria-hidden": "true" });
    this._empty = el("p", { class: "empty", part: "empty", hidden: true });
    this._status = el("p", { class: "status", role: "status", "aria-live": "polite" });
    this._scroll = el("div", { id: `${this._id}-list`, class: "scroll" }, this._list, this._empty, this._end, this._status);
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
      this._tabBar,
      this._pushBox,
      this._scroll,
      this._preferencesView,
      el("div", { class: "foot", part: "footer" }, el("div", { class: "views" }, this._viewButtons.archived, this._viewButtons.snoozed), this._settingsButton),
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
    const settings = !this._preferencesView.hidden;
    const view = this._view;
    const viewNames = { archived: t.archived, snoozed: t.snoozedView };
    this._heading.textContent = settings ? t.settings : viewNames[view] || this._tenantName || t.notifications;
    this._settingsButton.textContent = settings ? t.back : t.settings;
    for (const [name, button] of Object.entries(this._viewButtons)) {
      button.textContent = viewNames[name];
      button.hidden = settings;
    }
    this._markAll.textContent = t.markAll;
    this._markAll.hidden = settings || view !== "inbox";
    this._empty.textContent = { archived: t.archivedEmpty, snoozed: t.snoozedEmpty }[view] || t.empty;
    this._renderTabs();
    this._updateBadge();
  }

  _updateBadge() {
    const kind = this._countKind;
    const n = this._counts[kind];
    this._badge.hidden = n === 0;
    this._badge.textContent = n > 99 ? "99+" : String(n);
    this._button.setAttribute("aria-label", `${this._t.notifications}, ${this._t[kind](n)}`);
    this._markAll.disabled = this._counts.unread === 0;
    this.setAttribute("data-unread", String(this._counts.unread));
    this.setAttribute("data-unseen", String(this._counts.unseen));
    if (this._tabCounts.length) this._renderTabCounts();
  }

  _setCounts(counts) {
    this._counts = {
      unseen: Math.max(0, counts.unseen ?? this._counts.unseen),
      unread: Math.max(0, counts.unread ?? this._counts.unread),
    };
    this._updateBadge();
  }

  _readTabs() {
    this._tabs = parseTabs(this.getAttribute("tabs"));
    if (this._tabIndex > this._tabs.length) this._tabIndex = 0;
    this._tabCounts = [];
  }

  _renderTabs() {
    this._tabBar.hidden = this._tabs.length === 0 || !this._preferencesView.hidden;
    if (this._tabs.length === 0) {
      this._tabBar.replaceChildren();
      this._scroll.removeAttribute("role");
      this._scroll.removeAttribute("aria-labelledby");
      return;
    }
    const labels = [this._t.all, ...this._tabs.map((tab) => tab.label)];
    const focused = this._tabBar.contains(this.shadowRoot.activeElement);
    this._tabBar.replaceChildren(
      ...labels.map((label, index) => {
        const selected = index === this._tabIndex;
        const tab = el("button", {
          type: "button",
          role: "tab",
          class: "tab",
          part: "tab",
          id: `${this._id}-tab-${index}`,
          "data-index": index,
          "aria-selected": String(selected),
          "aria-controls": `${this._id}-list`,
          tabindex: selected ? "0" : "-1",
        });
        tab.append(label, el("span", { class: "tab-count", "data-count": "" }));
        return tab;
      }),
    );
    this._scroll.setAttribute("role", "tabpanel");
    this._scroll.setAttribute("aria-labelledby", `${this._id}-tab-${this._tabIndex}`);
    this._renderTabCounts();
    if (focused) this._tabBar.querySelector('[aria-selected="true"]').focus();
  }

  _renderTabCounts() {
    const kind = this._countKind;
    this._tabBar.querySelectorAll("[role=tab]").forEach((tab, index) => {
      const n = index === 0 ? this._counts[kind] : this._tabCounts[index - 1];
      const count = tab.querySelector(".tab-count");
      count.textContent = n ? (n > 99 ? "99+" : String(n)) : "";
      count.dataset.count = String(n ?? "");
    });
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
    const t = this._t;
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
    const snoozed = isSnoozed(item);
    if (snoozed) text.append(this._renderComesBack(item.snoozed_until));
    const dot = el("span", { class: "dot" });
    if (unread) dot.append(el("span", { class: "visually-hidden" }, t.unreadMarker));
    const part = ["item", unread && "unread", !item.seen_at && "unseen"].filter(Boolean).join(" ");
    const control = url
      ? el("a", { class: "item", part, href: url, "data-unread": unread, "data-focus": "item" })
      : el("button", { type: "button", class: "item", part, "data-unread": unread, "data-focus": "item" });
    control.dataset.id = String(item.id);
    control.append(dot, text);

    const below = el("div", { class: "below" });
    const actions = Array.isArray(item.actions) ? item.actions : [];
    if (actions.length > 0) {
      const group = el("div", { class: "actions", part: "actions" });
      actions.forEach((action, n) => {
        const button = this._renderAction(action, n);
        if (button) group.append(button);
      });
      below.append(group);
    }
    // A toggle keeps its data-focus when it flips, so the focus stays on it.
    const tool = (name, label, focus, attributes = {}) => {
      const button = el("button", { type: "button", class: "tool", "data-tool": name, "data-focus": focus, "aria-label": label, title: label, ...attributes });
      button.innerHTML = TOOL_ICONS[name];
      return button;
    };
    const tools = el("div", { class: "tools", part: "tools", role: "group", "aria-label": t.toolsFor(item.title) });
    tools.append(unread ? tool("read", t.markRead, "read") : tool("unread", t.markUnread, "read"));
    if (item.archived_at) {
      tools.append(tool("unarchive", t.unarchive, "archive"));
    } else if (snoozed) {
      // Archived while snoozed it would be listed nowhere: back first.
      tools.append(tool("unsnooze", t.unsnooze, "snooze"));
    } else {
      tools.append(tool("archive", t.archive, "archive"));
      const menuId = `${this._id}-snooze-${item.id}`;
      const open = this._openMenu === item.id;
      tools.append(tool("snooze", t.snooze, "snooze", { "aria-haspopup": "menu", "aria-expanded": String(open), "aria-controls": menuId }));
      const menu = el("div", { id: menuId, class: "menu", role: "menu", "aria-label": t.snooze, hidden: !open });
      for (const choice of ["hour", "tomorrow", "week"]) {
        const entry = el("button", { type: "button", role: "menuitem", tabindex: "-1", "data-snooze": choice, "data-focus": `snooze-${choice}` });
        entry.textContent = t.snoozeFor[choice];
        menu.append(entry);
      }
      tools.append(menu);
    }
    below.append(tools);
    return el("li", { "data-id": item.id, "data-unread": unread, "data-seen": Boolean(item.seen_at) }, control, below);
  }

  // When a snoozed item comes back: "Comes back in 3 hours", the local date
  // and time as its tooltip.
  _renderComesBack(until) {
    const t = this._t;
    const time = el("time", { class: "time back", datetime: until, title: new Date(until).toLocaleString(this._locale) });
    time.textContent = t.comesBack(Date.parse(until) - Date.now() < 60000 ? t.soon : this._relativeTime(until));
    return time;
  }

  // An action of an item: a link for `url` (an internal path, like the
  // item's link), a button for `event`, shown pressed once it was.
  _renderAction(action, n) {
    if (!isObject(action) || typeof action.label !== "string") return null;
    const attributes = { class: n === 0 ? "action primary" : "action", part: "action", "data-action": n, "data-focus": `action-${n}` };
    if (action.url) {
      const href = internalUrl(action.url);
      if (!href) return null;
      const link = el("a", { ...attributes, href });
      link.textContent = action.label;
      return link;
    }
    const pressed = Boolean(action.pressed_at);
    const button = el("button", { ...attributes, type: "button", "data-pressed": pressed, "aria-disabled": pressed ? "true" : null });
    button.textContent = pressed ? `✓ ${action.label}` : action.label;
    return button;
  }

  // The view's items, newest first. While the bell is open on its inbox,
  // what it shows is marked seen.
  _renderList() {
    const now = Date.now();
    const items = [...this._items.values()].filter((item) => inView(item, this._view, this._tab, now)).sort(newerFirst);
    if (this.open && this._view === "inbox" && this._preferencesView.hidden) this._markSeen(items);
    // Rebuilt on each change: the control that had the focus keeps it.
    const active = this.shadowRoot.activeElement;
    const focused = active && this._list.contains(active) ? { id: active.closest("li")?.dataset.id, key: active.dataset.focus } : null;
    this._list.replaceChildren(...items.map((item) => this._renderItem(item)));
    this._empty.hidden = items.length > 0 || this._page().cursor === undefined;
    if (focused?.id && focused.key) {
      const again = this._list.querySelector(`li[data-id="${focused.id}"] [data-focus="${focused.key}"]`);
      // An item that left the view (changed elsewhere) leaves the focus in the panel.
      (again || this._list.querySelector(`li[data-id="${focused.id}"] .item`) || this._panel).focus();
    }
  }

  // ---- data ----------------------------------------------------------------

  _merge(items) {
    let added = 0;
    for (const item of items) {
      if (!this._items.has(item.id)) added++;
      this._items.set(item.id, item);
    }
    return added;
  }

  async _loadPage() {
    const page = this._page();
    if (!this._client || page.loading || page.cursor === null) return;
    page.loading = true;
    if (this._list.childElementCount === 0) this._status.textContent = this._t.loading;
    try {
      const result = await this._client.list({ ...this._filters(), limit: PAGE_SIZE, cursor: page.cursor || undefined });
      this._merge(result.items);
      page.cursor = result.next_cursor;
      this._status.textContent = "";
      this._renderList();
    } catch {
      this._status.textContent = this._t.loadFailed;
      return;
    } finally {
      page.loading = false;
    }
    // An observer reports only changes it sees at a rendering step: when the
    // end stayed in view while this page loaded, or the list grew and was
    // scrolled back to its end before the next frame, no change is seen and
    // nothing asks for the next page. Observing again reports where the end
    // is now.
    if (page.cursor && this._observer) {
      this._observer.unobserve(this._end);
      this._observer.observe(this._end);
    }
  }

  // After a reconnect, or a change to items not loaded: the view's first
  // page again, whose objects replace the ones held (their states may have
  // changed meanwhile); the map keeps each id once however often it is seen.
  async _resync() {
    if (!this._client) return;
    const page = this._page();
    try {
      const result = await this._client.list({ ...this._filters(), limit: PAGE_SIZE });
      if (page.cursor === undefined) page.cursor = result.next_cursor;
      this._merge(result.items);
      this._renderList();
    } catch {
      // The stream's next reconnect tries again.
    }
  }

  _observeEnd() {
    if (this._observer || !("IntersectionObserver" in window)) return;
    this._observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting) && this._page().cursor) this._loadPage();
      },
      { root: this._scroll, rootMargin: "80px" },
    );
    this._observer.observe(this._end);
  }

  // Both counts from the server (the stream's `counts` event keeps them
  // current after this).
  async _refreshCounts() {
    if (!this._client) return;
    try {
      const [unseen, unread] = await Promise.all([this._client.count({ count: "unseen" }), this._client.count({ count: "unread" })]);
      this._setCounts({ unseen, unread });
    } catch {
      // The stream's first events carry the counts too.
    }
    this._refreshTabCounts();
  }

  // Each tab's count, asked soon after a change (one request per tab for a
  // burst of changes).
  _refreshTabCounts() {
    if (this._tabs.length === 0 || !this._client || this._tabCountsTimer) return;
    this._tabCountsTimer = setTimeout(async () => {
      this._tabCountsTimer = null;
      const client = this._client;
      if (!client) return;
      try {
        const count = this._countKind;
        this._tabCounts = await Promise.all(this._tabs.map((tab) => client.count({ count, category: tab.category, tag: tab.tag })));
        this._renderTabCounts();
      } catch {
        // Kept as they were; the next change asks again.
      }
    }, 50);
  }

  // Applies a change made here to the items at once (and the counts, by what
  // each item adds to them); the server's answer and its events follow.
  _applyLocal(ids, change, at, snoozedUntil = null) {
    const now = Date.now();
    const delta = { unseen: 0, unread: 0 };
    for (const id of ids) {
      const item = this._items.get(id);
      if (!item) continue;
      const before = countsOf(item, now);
      applyState(item, change, at, snoozedUntil);
      const after = countsOf(item, now);
      delta.unseen += after.unseen - before.unseen;
      delta.unread += after.unread - before.unread;
    }
    this._setCounts({ unseen: this._counts.unseen + delta.unseen, unread: this._counts.unread + delta.unread });
  }

  // Marks `items` seen that are not yet.
  _markSeen(items) {
    const ids = items.filter((item) => !item.seen_at).map((item) => item.id);
    if (ids.length === 0 || !this._client) return;
    this._applyLocal(ids, "seen", new Date().toISOString());
    this._client.markSeen({ ids }).then(
      () => this._refreshTabCounts(),
      () => this._refreshCounts(),
    );
  }

  async _markRead(ids) {
    this._applyLocal(ids, "read", new Date().toISOString());
    this._renderList();
    this._refreshTabCounts();
    return this._client.markRead({ ids });
  }

  // "Mark all as read": of the tab on screen, or all of them.
  async _markAllRead() {
    const tab = this._tab;
    const ids = [...this._items.values()].filter((item) => inView(item, "inbox", tab) && !item.read_at).map((item) => item.id);
    this._applyLocal(ids, "read", new Date().toISOString());
    if (!tab) this._setCounts({ unseen: 0, unread: 0 });
    this._renderList();
    try {
      await this._client.markRead({ all: true, category: tab?.category, tag: tab?.tag });
    } catch {
      this._status.textContent = this._t.changeFailed;
    }
    this._refreshCounts();
  }

  // A tool of an item: read, unread, archive, unarchive, unsnooze, or a
  // snooze choice.
  // An item that leaves the view hands the focus to its neighbour.
  async _change(id, tool, choice) {
    const item = this._items.get(id);
    if (!item || !this._client) return;
    const at = new Date().toISOString();
    const index = [...this._list.children].findIndex((li) => li.dataset.id === String(id));
    const target = tool === "snooze" ? snoozeTarget(choice) : null;
    const call = {
      read: () => this._client.markRead({ ids: [id] }),
      unread: () => this._client.markUnread({ ids: [id] }),
      archive: () => this._client.archive({ ids: [id] }),
      unarchive: () => this._client.unarchive({ ids: [id] }),
      snooze: () => this._client.snooze({ ids: [id], ...target }),
      unsnooze: () => this._client.unsnooze({ ids: [id] }),
    }[tool];
    const change = { read: "read", unread: "unread", archive: "archived", unarchive: "unarchived", snooze: "snoozed", unsnooze: "unsnoozed" }[tool];
    const snoozedUntil = target ? (target.until ?? new Date(Date.now() + target.minutes * 60000)).toISOString() : null;
    this._openMenu = null;
    this._applyLocal([id], change, at, snoozedUntil);
    this._renderList();
    if (tool === "snooze") this._announcer.textContent = this._t.snoozed(item.title);
    if (tool === "unsnooze") this._announcer.textContent = this._t.unsnoozed(item.title);
    if (!this._list.querySelector(`li[data-id="${id}"]`)) {
      const items = this._list.querySelectorAll(".item");
      (items[Math.min(index, items.length - 1)] || this._panel).focus();
    }
    try {
      await call();
    } catch {
      this._status.textContent = this._t.changeFailed;
      this._resync();
      this._refreshCounts();
      return;
    }
    this._refreshTabCounts();
  }

  // An item's action n: a link is followed (the item read first), an event
  // is pressed once (the server records it and reads the item).
  async _pressAction(id, n, control, event) {
    const item = this._items.get(id);
    const action = item?.actions?.[n];
    if (!action) return;
    if (action.url) {
      this._follow(id, control.href, event);
      return;
    }
    event.preventDefault();
    if (action.pressed_at || control.dataset.busy) return;
    control.dataset.busy = "";
    // Read here before asking: the server's counts for the press may come
    // before its answer, and must not be lowered again after it.
    this._applyLocal([id], "read", new Date().toISOString());
    try {
      const result = await this._client.pressAction(id, n);
      action.pressed_at = result.pressed_at;
      this._renderList();
      this._refreshTabCounts();
      this.dispatchEvent(new CustomEvent("chopar-bell-action", { bubbles: true, composed: true, detail: { id, ...result } }));
    } catch {
      delete control.dataset.busy;
      this._status.textContent = this._t.changeFailed;
      this._resync();
      this._refreshCounts();
    }
  }

  // Reads the item, tells the page, and follows `href` (an internal link).
  // Modified clicks (new tab, download) keep the browser's own behaviour.
  async _follow(id, href, event) {
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

  _onListClick(event) {
    const li = event.target.closest("li[data-id]");
    if (!li) return;
    const id = Number(li.dataset.id);
    const action = event.target.closest("[data-action]");
    if (action) return this._pressAction(id, Number(action.dataset.action), action, event);
    const choice = event.target.closest("[data-snooze]");
    if (choice) return this._change(id, "snooze", choice.dataset.snooze);
    const tool = event.target.closest("[data-tool]");
    if (tool?.dataset.tool === "snooze") return this._toggleMenu(id);
    if (tool) return this._change(id, tool.dataset.tool);
    const control = event.target.closest(".item");
    if (control) return this._follow(id, control.tagName === "A" ? control.href : null, event);
  }

  _toggleMenu(id) {
    this._openMenu = this._openMenu === id ? null : id;
    this._renderList();
    if (this._openMenu !== null) this._list.querySelector(`li[data-id="${id}"] [role=menuitem]`)?.focus();
  }

  // In an open snooze menu: arrows move, Escape closes it (not the panel)
  // and gives the focus back to its button, Tab leaves it closed.
  _onMenuKey(event) {
    const menu = event.target.closest("[role=menu]");
    if (!menu) return;
    const entries = [...menu.querySelectorAll("[role=menuitem]")];
    const index = entries.indexOf(event.target);
    const id = Number(menu.closest("li").dataset.id);
    if (event.key === "Escape" || event.key === "Tab") {
      if (event.key === "Escape") event.preventDefault();
      event.stopPropagation();
      this._openMenu = null;
      this._renderList();
      this._list.querySelector(`li[data-id="${id}"] [data-tool=snooze]`)?.focus();
      return;
    }
    const moves = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: entries.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    event.stopPropagation();
    entries[(moves[event.key] + entries.length) % entries.length].focus();
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
    const current = this.shadowRoot.activeElement?.closest?.("li")?.querySelector(".item");
    const index = controls.indexOf(current);
    const next = event.key === "ArrowDown" ? Math.min(controls.length - 1, index + 1) : Math.max(0, index - 1);
    event.preventDefault();
    controls[next].focus();
  }

  // Tabs follow the keyboard (arrows, Home, End) and show their list at once.
  _onTabKey(event) {
    const last = this._tabs.length;
    const moves = { ArrowRight: this._tabIndex + 1, ArrowLeft: this._tabIndex - 1, Home: 0, End: last };
    if (!(event.key in moves)) return;
    event.preventDefault();
    this._selectTab((moves[event.key] + last + 1) % (last + 1));
    this._tabBar.querySelector('[aria-selected="true"]').focus();
  }

  _selectTab(index) {
    if (index === this._tabIndex) return;
    this._tabIndex = index;
    this._openMenu = null;
    this._renderTabs();
    this._renderList();
    if (this._page().cursor === undefined) this._loadPage();
  }

  _setView(view) {
    this._view = view;
    this._openMenu = null;
    for (const [name, button] of Object.entries(this._viewButtons)) button.setAttribute("aria-pressed", String(view === name));
    this._applyTexts();
    this._renderList();
    if (this._page().cursor === undefined) this._loadPage();
  }

  // ---- preferences --------------------------------------------------------

  // The categories to offer: the `categories` attribute's, then any other
  // the user has settings for.
  get _categories() {
    const named = (this.getAttribute("categories") || "").split(/[\s,]+/).filter(Boolean);
    const stored = this._preferences && isObject(this._preferences.categories) ? Object.keys(this._preferences.categories).sort() : [];
    return [...new Set([...named, ...stored])];
  }

  // The server's channels, fetched once.
  async _channelList() {
    if (!this._channels) this._channels = await this._client.channels();
    return this._channels;
  }

  async _showPreferences() {
    this._preferencesView.hidden = false;
    this._scroll.hidden = true;
    this._settingsButton.setAttribute("aria-expanded", "true");
    this._applyTexts();
    this._renderPreferences();
    try {
      [this._channels, this._preferences] =
          await Promise.all([this._channelList(), this._client.preferences()]);
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
        this._preferences = await this._client.setPreferences(change);
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
    const tenant = this.getAttribute("tenant") || null;
    this._client = new ChoparClient({ baseUrl: this._server, token: this._token, tenant });
    if (tenant) this._loadTenant();
    this._refreshCounts();
    this._client.subscribe({
      open: ({ reconnected }) => {
        this.removeAttribute("data-offline");
        if (this._status.textContent === this._t.offline) this._status.textContent = "";
        if (reconnected) {
          this._resync();
          this._refreshTabCounts();
        }
      },
      offline: () => {
        this.setAttribute("data-offline", "");
        if (this.open && this._items.size === 0) this._status.textContent = this._t.offline;
      },
      counts: (counts) => {
        this._setCounts(counts);
        this._refreshTabCounts();
      },
      unread_count: ({ count }) => this._setCounts({ unread: count }),
      notification: (item) => {
        if (this._merge([item]) === 0) return;
        this._renderList();
        this._announcer.textContent = this._t.newItem(item.title);
        this.dispatchEvent(new CustomEvent("chopar-bell-notification", { bubbles: true, composed: true, detail: item }));
      },
      state: (change) => this._onState(change),
    });
    if (this.hasAttribute("push")) this._offerPush();
  }

  _stop() {
    this._client?.close();
    this._client = null;
    clearTimeout(this._tabCountsTimer);
    this._tabCountsTimer = null;
  }

  // A `state` event: a change made anywhere (here, another tab, the
  // application's server key, a snooze running out). Items coming back from
  // a snooze arrive whole; a change to items not loaded (or to all of them)
  // fetches the view's first page again.
  _onState(change) {
    const at = change.at || new Date().toISOString();
    if (Array.isArray(change.notifications)) this._merge(change.notifications);
    let missing = false;
    if (change.all) {
      const tab = { category: change.category, tag: change.tag };
      for (const item of this._items.values()) {
        if ((change.tenant && item.tenant !== change.tenant) || !inTab(item, tab.category || tab.tag ? tab : null)) continue;
        applyState(item, change.change, at, change.snoozed_until);
      }
      missing = true;
    } else {
      for (const id of change.ids || []) {
        const item = this._items.get(id);
        if (item && !change.notifications) applyState(item, change.change, at, change.snoozed_until);
        missing ||= !item;
      }
    }
    this._renderList();
    this._refreshTabCounts();
    if (missing && this._page().cursor !== undefined) this._resync();
  }

  async _loadTenant() {
    try {
      const tenant = await this._client.tenantInfo();
      this._tenantName = tenant.name;
      this._applyTexts();
    } catch {
      // Not the user's tenant, or offline: the heading stays the default.
    }
  }

  // ---- Web Push opt-in ----------------------------------------------------

  async _offerPush() {
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return;
    let key;
    try {
      key = (await this._client.request("GET", "/v1/inbox/vapid-public-key")).public_key;
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
        await this._client.request("POST", "/v1/inbox/push-subscriptions", subscription.toJSON());
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
