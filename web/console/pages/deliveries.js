// Deliveries: filter by status, channel and user; retry what failed.
import {api, can, channelNames, query} from '../api.js';
import {errorBox, formatTime, h, relativeTime, statusBadge, table} from '../dom.js';

const STATUSES = ['', 'queued', 'sending', 'sent', 'failed', 'skipped', 'canceled'];
const PAGE = 50;
const REFRESH_MS = 2000;

function select(id, label, options) {
  return [h("label", { for: id }, label), h("select", { id, name: id }, options.map((o) => h("option", { value: o }, o || "any")))];
}

export async function deliveriesPage(main, _params, signal) {
  const channelOptions = ['', ...(await channelNames())];
  const [statusLabel, status] = select("filter-status", "Status", STATUSES);
  const [channelLabel, channel] = select('filter-channel', 'Channel', channelOptions);
  const user = h("input", { id: "filter-user", name: "filter-user", type: "number", min: 1, inputmode: "numeric" });
  const form = h("form", { class: "filters", role: "search" }, statusLabel, status, channelLabel, channel, h("label", { for: "filter-user" }, "User id"), user, h("button", { type: "submit" }, "Filter"));
  const list = h("div");
  const more = h("button", { type: "button", class: "quiet", hidden: true }, "Load more");
  const message = h("div", { "aria-live": "polite" });
  main.replaceChildren(h("h1", {}, "Deliveries"), form, message, list, more);

  let items = [];
  let cursor = null;

  const filters = () => ({ status: status.value, channel: channel.value, user_id: user.value });

  async function retry(delivery, button) {
    button.disabled = true;
    try {
      const updated = await api(`/v1/deliveries/${delivery.id}/retry`, { method: "POST" });
      items = items.map((d) => (d.id === updated.id ? updated : d));
      message.replaceChildren(h("p", { class: "notice", role: "status" }, `Delivery ${delivery.id} is queued again.`));
      render();
    } catch (error) {
      message.replaceChildren(errorBox(error));
      button.disabled = false;
    }
  }

  function render() {
    if (items.length === 0) {
      list.replaceChildren(h("p", { class: "muted" }, "No deliveries match."));
      return;
    }
    list.replaceChildren(
      table(
        [
          { title: "id", cell: (d) => String(d.id) },
          { title: "notification", cell: (d) => h("a", { href: `#/notifications/${d.notification_id}` }, `#${d.notification_id}`) },
          { title: "user", cell: (d) => h("a", { href: `#/users/${d.user_id}` }, String(d.user_id)) },
          { title: "channel", cell: (d) => d.channel },
          { title: "status", cell: (d) => statusBadge(d.status) },
          { title: "attempts", cell: (d) => String(d.attempts) },
          // Who has the message, by which id, and what it reported afterwards
          // (WhatsApp's read, Eskiz's DELIVRD, an email's delivered or bounced).
          { title: "provider", cell: (d) => h("span", { class: "provider" }, d.provider || "") },
          { title: "provider id", cell: (d) => h("code", { class: "provider-message-id" }, d.provider_message_id || "") },
          { title: "provider status", cell: (d) => h("span", { class: "provider-status" }, d.provider_status || "") },
          { title: "last error", cell: (d) => h("span", { class: "error-text" }, d.last_error || "") },
          { title: "updated", cell: (d) => h("time", { datetime: d.updated_at, title: formatTime(d.updated_at) }, relativeTime(d.updated_at)) },
          {
            title: "",
            cell: (d) => {
              // A viewer may not retry (the server refuses it too).
              if (d.status === "sent" || d.status === "sending" || !can("operate")) return "";
              const button = h("button", { type: "button", class: "small", "aria-label": `Retry delivery ${d.id}` }, "Retry");
              button.addEventListener("click", () => retry(d, button));
              return button;
            },
          },
        ],
        items,
        { rowAttributes: (d) => ({ "data-delivery": d.id, "data-status": d.status }) },
      ),
    );
    more.hidden = !cursor;
  }

  async function load({ append = false } = {}) {
    const limit = append ? PAGE : Math.max(PAGE, items.length);
    const page = await api(`/v1/deliveries${query({ ...filters(), limit: Math.min(limit, 500), cursor: append ? cursor : null })}`);
    if (signal.aborted) return;
    items = append ? items.concat(page.items) : page.items;
    cursor = page.next_cursor;
    render();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    items = [];
    load().catch((error) => message.replaceChildren(errorBox(error)));
  });
  more.addEventListener("click", () => load({ append: true }).catch((error) => message.replaceChildren(errorBox(error))));
  await load();
  // Retried rows change on their own: keep the page current.
  const timer = setInterval(() => load().catch(() => {}), REFRESH_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
}
