// Schedules with their next firing times, and a cron preview.
import { api, query } from "../api.js";
import { h, table, formatTime, relativeTime, errorBox, pagedList } from "../dom.js";

function inZone(iso, zone) {
  try {
    return new Intl.DateTimeFormat("en-GB", { timeZone: zone, dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
  } catch {
    return "";
  }
}

export async function schedulesPage(main, _params, signal) {
  const user = h("input", { id: "schedule-user", type: "number", min: 1 });
  const filter = h("form", { class: "filters", role: "search" }, h("label", { for: "schedule-user" }, "User id"), user, h("button", { type: "submit" }, "Filter"));

  const cron = h("input", { id: "preview-cron", type: "text", value: "5 18 * * *", required: true, spellcheck: "false" });
  const zone = h("input", { id: "preview-zone", type: "text", value: "Asia/Tashkent", required: true });
  const count = h("input", { id: "preview-count", type: "number", min: 1, max: 50, value: 5 });
  const result = h("div", { "aria-live": "polite" });
  const preview = h(
    "form",
    { class: "card form", "aria-labelledby": "preview-title" },
    h("h2", { id: "preview-title" }, "Cron preview"),
    h("div", { class: "field" }, h("label", { for: "preview-cron" }, "Cron"), cron),
    h("div", { class: "field" }, h("label", { for: "preview-zone" }, "Time zone"), zone),
    h("div", { class: "field" }, h("label", { for: "preview-count" }, "Firings"), count),
    h("button", { type: "submit" }, "Preview"),
    result,
  );
  preview.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const { fire_at } = await api("/v1/schedules/preview", {
        method: "POST",
        body: { cron: cron.value, timezone: zone.value, after: new Date().toISOString().replace(/\.\d+Z$/, "Z"), count: Number(count.value) },
      });
      result.replaceChildren(h("ol", { class: "preview" }, fire_at.map((t) => h("li", {}, h("time", { datetime: t }, formatTime(t)), h("span", { class: "muted" }, ` — ${inZone(t, zone.value)} ${zone.value}`)))));
    } catch (error) {
      result.replaceChildren(errorBox(error));
    }
  });

  const schedules = pagedList({
    fetchJson: api,
    path: (cursor) => `/v1/schedules${query({ user_id: user.value, limit: 50, cursor })}`,
    signal,
    render: (items) =>
      items.length === 0
        ? h("p", { class: "muted" }, "No schedules.")
        : table(
            [
              { title: "key", cell: (s) => h("code", {}, s.key) },
              { title: "user", cell: (s) => h("a", { href: `#/users/${s.user_id}` }, String(s.user_id)) },
              { title: "cron", cell: (s) => h("code", {}, s.cron) },
              { title: "zone", cell: (s) => s.effective_timezone + (s.timezone ? "" : " (user's)") },
              { title: "title", cell: (s) => s.notification.title },
              { title: "next firing", cell: (s) => (s.next_fire_at ? h("span", {}, h("time", { datetime: s.next_fire_at }, formatTime(s.next_fire_at)), h("span", { class: "muted" }, ` ${relativeTime(s.next_fire_at)}`)) : "—") },
              { title: "last fired", cell: (s) => formatTime(s.last_fired_at) },
              { title: "enabled", cell: (s) => (s.enabled ? "yes" : "no") },
            ],
            items,
            { rowAttributes: (s) => ({ "data-schedule": s.key }) },
          ),
  });
  main.replaceChildren(h("h1", {}, "Schedules"), filter, ...schedules.nodes, preview);
  filter.addEventListener("submit", (event) => {
    event.preventDefault();
    schedules.load().catch((error) => schedules.list.replaceChildren(errorBox(error)));
  });
  await schedules.load();
}
