// The audit log (GET /v1/audit, admins): who changed what, newest first,
// filtered by resource and actor; each row opens to the row before and
// after the change, the members that changed marked.
import { api, query } from "../api.js";
import { errorBox, formatTime, h, pagedList, relativeTime, table } from "../dom.js";

const RESOURCES = [
  "", "user", "telegram_connection", "push_subscription", "device", "template", "topic",
  "topic_subscriber", "schedule", "suppression", "slack_workspace", "broadcast", "delivery",
  "tenant", "api_key", "console_account",
];

// Before and after side by side, one row per member of either; the
// members whose value changed are marked.
function changeTable(entry) {
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const show = (row, name) => (row && name in row ? JSON.stringify(row[name]) : "—");
  return h(
    "table",
    { class: "audit-change" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "field"), h("th", { scope: "col" }, "before"), h("th", { scope: "col" }, "after"))),
    h(
      "tbody",
      {},
      names.map((name) => {
        const changed = JSON.stringify(before[name]) !== JSON.stringify(after[name]);
        return h(
          "tr",
          changed ? { class: "changed", "data-changed": name } : {},
          h("th", { scope: "row" }, name),
          h("td", {}, h("code", {}, entry.before ? show(before, name) : "—")),
          h("td", {}, h("code", {}, entry.after ? show(after, name) : "—")),
        );
      }),
    ),
  );
}

function entries(items) {
  if (items.length === 0) return h("p", { class: "muted" }, "No change recorded.");
  return table(
    [
      { title: "When", cell: (e) => h("time", { datetime: e.at, title: formatTime(e.at) }, relativeTime(e.at)) },
      { title: "Who", cell: (e) => h("span", { title: e.actor }, e.actor_name || e.actor) },
      { title: "From", cell: (e) => e.address || "—" },
      { title: "Action", cell: (e) => h("span", { class: `badge action-${e.action}` }, e.action) },
      { title: "What", cell: (e) => `${e.resource} ${e.resource_id}` },
      {
        title: "Change",
        cell: (e) => h("details", {}, h("summary", {}, "before / after"), changeTable(e)),
      },
    ],
    items,
    { caption: "Changes, newest first", rowAttributes: (e) => ({ "data-audit": e.id }) },
  );
}

export async function auditPage(main, _params, signal) {
  const resource = h("select", { id: "audit-resource", name: "resource" }, RESOURCES.map((r) => h("option", { value: r }, r || "every resource")));
  const actor = h("input", { id: "audit-actor", name: "actor", placeholder: "api_key, key:3, account:1, cli", maxlength: 100 });
  const list = pagedList({
    fetchJson: (path) => api(path),
    path: (cursor) => `/v1/audit${query({ resource: resource.value, actor: actor.value.trim(), cursor, limit: 50 })}`,
    render: entries,
    signal,
  });
  const reload = () => list.load().catch((error) => list.list.replaceChildren(errorBox(error)));
  resource.addEventListener("change", reload);
  actor.addEventListener("change", reload);
  main.replaceChildren(
    h("h1", {}, "Audit log"),
    h(
      "form",
      { class: "filters", role: "search", "aria-label": "Filter the audit log" },
      h("label", { for: "audit-resource" }, "Resource"),
      resource,
      h("label", { for: "audit-actor" }, "Actor"),
      actor,
    ),
    ...list.nodes,
  );
  await list.load();
}
