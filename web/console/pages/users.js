// Users: browse, and edit one user's addresses, preferences and quiet hours.
import {api, can, channelNames, channelsAddressedByUser, query} from '../api.js';
import {errorBox, formatTime, h, pagedList, table} from '../dom.js';

export async function usersPage(main, _params, signal) {
  const channels = await channelNames();
  const lookup = h("input", { id: "user-id", type: "number", min: 1, required: true });
  const form = h("form", { class: "filters", role: "search" }, h("label", { for: "user-id" }, "Open or create user id"), lookup, h("button", { type: "submit" }, "Open"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `#/users/${lookup.value}`;
  });
  const users = pagedList({
    fetchJson: api,
    path: (cursor) => `/v1/users${query({limit: 50, cursor})}`,
    signal,
    render: (items) => items.length === 0 ?
        h('p', {class: 'muted'}, 'No users yet. Create one with PUT /v1/users/{id} or above.') :
        table(
            [
              {title: 'id', cell: (u) => h('a', {href: `#/users/${u.id}`}, String(u.id))},
              {title: 'email', cell: (u) => u.email || '—'},
              {title: 'phone', cell: (u) => u.phone || '—'},
              {title: 'time zone', cell: (u) => u.timezone},
              {title: 'locale', cell: (u) => u.locale},
              {
                title: 'reachable on',
                cell: (u) => channels.filter((c) => u.channels[c]).join(', ') || 'in-app only'
              },
              {title: 'admin', cell: (u) => (u.admin ? 'yes' : '')},
            ],
            items,
            ),
  });
  main.replaceChildren(h("h1", {}, "Users"), form, ...users.nodes);
  await users.load();
}

function field(id, label, input, help) {
  input.id = id;
  input.name = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), input, help ? h("span", { class: "muted" }, help) : null);
}

function preferenceSelect(channel, preferences) {
  const value = typeof preferences[channel] === "boolean" ? String(preferences[channel]) : "";
  const select = h(
    "select",
    {},
    h("option", { value: "" }, "default"),
    h("option", { value: "true" }, "on"),
    h("option", { value: "false" }, "off"),
  );
  select.value = value;
  return select;
}

export async function userPage(main, [id], signal) {
  const channels = await channelNames();
  const addressed = await channelsAddressedByUser();
  let user;
  try {
    user = await api(`/v1/users/${id}`);
  } catch (error) {
    if (error.status !== 404) throw error;
    user = null;
  }
  if (signal.aborted) return;
  const message = h("div", { "aria-live": "polite" });
  const email = h("input", { type: "email", value: user?.email || "" });
  const phone = h("input", { type: "tel", value: user?.phone || "", placeholder: "+998901234567" });
  const addressInputs = Object.fromEntries(addressed.map(
      (c) => [c.name, h('input', {type: 'text', value: user?.addresses?.[c.name] || ''})]));
  const timezone = h("input", { type: "text", value: user?.timezone || "UTC" });
  const locale = h("input", { type: "text", value: user?.locale || "en" });
  const admin = h("input", { type: "checkbox" });
  admin.checked = Boolean(user?.admin);
  const preferences = user?.preferences || {};
  const prefSelects =
      Object.fromEntries(channels.map((c) => [c, preferenceSelect(c, preferences)]));
  const quietOn = h("input", { type: "checkbox" });
  quietOn.checked = Boolean(user?.quiet_hours);
  const quietStart = h("input", { type: "time", value: user?.quiet_hours?.start || "22:00" });
  const quietEnd = h("input", { type: "time", value: user?.quiet_hours?.end || "08:00" });

  const form = h(
      'form',
      {class: 'card form', 'aria-labelledby': 'user-title'},
      h('h2', {id: 'user-title'}, user ? 'Profile' : 'New user'),
      field('user-email', 'Email', email),
      field('user-phone', 'Phone (E.164)', phone),
      addressed.map((c) => field(`user-address-${c.name}`, `${c.name} (${c.address})`,
                                 addressInputs[c.name])),
      field('user-timezone', 'Time zone (IANA)', timezone),
      field('user-locale', 'Locale', locale),
      h('div', {class: 'field inline'}, admin,
        h('label',
          { for: "user-admin"
          },
          'Admin (receives reports)')),
      h('fieldset', {}, h('legend', {}, 'Channel preferences'),
        channels.map((c) => field(`pref-${c}`, c, prefSelects[c]))),
      h(
          'fieldset',
          {},
          h('legend', {}, 'Quiet hours'),
          h('div', {class: 'field inline'}, quietOn,
            h('label',
              { for: "quiet-on"
              },
              'Hold non-critical deliveries')),
          field('quiet-start', 'From', quietStart),
          field('quiet-end', 'Until', quietEnd),
          ),
      // Changing a user needs the manage scope (an admin's session).
      can('manage') ? h('button', {type: 'submit'}, 'Save') : null,
  );
  admin.id = "user-admin";
  quietOn.id = "quiet-on";
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const prefs = {};
    for (const c of channels)
      prefs[c] = prefSelects[c].value === '' ? null : prefSelects[c].value === 'true';
    const body = {
      email: email.value.trim() || null,
      phone: phone.value.trim() || null,
      timezone: timezone.value.trim(),
      locale: locale.value.trim(),
      admin: admin.checked,
      preferences: prefs,
      quiet_hours: quietOn.checked ? { start: quietStart.value, end: quietEnd.value } : null,
    };
    if (addressed.length > 0) {
      body.addresses = Object.fromEntries(
          addressed.map((c) => [c.name, addressInputs[c.name].value.trim() || null]));
    }
    try {
      await api(`/v1/users/${id}`, { method: "PUT", body });
      message.replaceChildren(h("p", { class: "notice", role: "status" }, "Saved."));
      if (!user) userPage(main, [id], signal);
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  });

  const sections = [h("p", {}, h("a", { href: "#/users" }, "← Users")), h("h1", {}, `User ${id}`), message, form];
  if (user) {
    sections.push(await telegramCard(user, message), await pushCard(user, message), await devicesCard(user, message), notificationsCard(user));
  }
  main.replaceChildren(...sections);
}

async function telegramCard(user, message) {
  const chat = h("input", { type: "number", id: "telegram-chat", value: user.telegram?.chat_id || "" });
  const state = user.telegram ? (user.telegram.active ? "connected" : "blocked the bot (inactive)") : "not connected";
  const save = h("button", { type: "button", hidden: !can("manage") }, "Connect chat");
  const remove = h("button", { type: "button", class: "quiet", hidden: !user.telegram || !can("manage") }, "Disconnect");
  save.addEventListener("click", async () => {
    try {
      await api(`/v1/users/${user.id}/telegram`, { method: "PUT", body: { chat_id: Number(chat.value) } });
      message.replaceChildren(h("p", { class: "notice", role: "status" }, "Telegram chat connected."));
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  });
  remove.addEventListener("click", async () => {
    await api(`/v1/users/${user.id}/telegram`, { method: "DELETE" }).catch((error) => message.replaceChildren(errorBox(error)));
    message.replaceChildren(h("p", { class: "notice", role: "status" }, "Telegram disconnected."));
  });
  return h("section", { class: "card" }, h("h2", {}, "Telegram"), h("p", {}, state), field("telegram-chat", "Chat id", chat), h("div", { class: "actions" }, save, remove));
}

// The user's mobile devices (the `mobile` channel's addresses), each removable.
async function devicesCard(user, message) {
  const { items } = await api(`/v1/users/${user.id}/devices`);
  const list = items.length === 0
    ? h("p", { class: "muted" }, "No mobile devices.")
    : table(
        [
          { title: "id", cell: (d) => String(d.id) },
          { title: "platform", cell: (d) => d.platform },
          { title: "app", cell: (d) => d.app },
          // A token is long; its ends tell two apart.
          { title: "token", cell: (d) => h("code", { class: "device-token", title: d.token }, d.token.length > 24 ? `${d.token.slice(0, 12)}…${d.token.slice(-8)}` : d.token) },
          { title: "since", cell: (d) => formatTime(d.created_at) },
          {
            title: "",
            cell: (d) => {
              if (!can("manage")) return "";
              const button = h("button", { type: "button", class: "small quiet", "aria-label": `Remove device ${d.id}` }, "Remove");
              button.addEventListener("click", async () => {
                try {
                  await api(`/v1/users/${user.id}/devices/${d.id}`, { method: "DELETE" });
                  button.closest("tr").remove();
                } catch (error) {
                  message.replaceChildren(errorBox(error));
                }
              });
              return button;
            },
          },
        ],
        items,
        { rowAttributes: (d) => ({ "data-device": d.id }) },
      );
  return h("section", { class: "card" }, h("h2", {}, "Mobile devices"), list);
}

async function pushCard(user, message) {
  const { items } = await api(`/v1/users/${user.id}/push-subscriptions`);
  const list = items.length === 0
    ? h("p", { class: "muted" }, "No push subscriptions.")
    : table(
        [
          { title: "id", cell: (s) => String(s.id) },
          { title: "endpoint", cell: (s) => h("code", { class: "wrap" }, s.endpoint) },
          { title: "since", cell: (s) => formatTime(s.created_at) },
          {
            title: "",
            cell: (s) => {
              if (!can("manage")) return "";
              const button = h("button", { type: "button", class: "small quiet" }, "Remove");
              button.addEventListener("click", async () => {
                try {
                  await api(`/v1/users/${user.id}/push-subscriptions/${s.id}`, { method: "DELETE" });
                  button.closest("tr").remove();
                } catch (error) {
                  message.replaceChildren(errorBox(error));
                }
              });
              return button;
            },
          },
        ],
        items,
      );
  return h("section", { class: "card" }, h("h2", {}, "Push subscriptions"), list);
}

function notificationsCard(user) {
  return h(
    "section",
    { class: "card" },
    h("h2", {}, "Activity"),
    h("p", {}, h("a", { href: `#/deliveries` }, "Deliveries"), " · ", h("a", { href: `#/sink` }, "Sink inbox"), " · subscriber token: GET /v1/users/", String(user.id), "/token"),
  );
}
