// Small DOM helpers. Data never goes through innerHTML: text is set as text.

// h("a", {href: "#/x", class: "y", onclick: fn}, "text", child, …)
export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : String(child));
  }
}

// An SVG element with attributes.
export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  append(node, children);
  return node;
}

// "2026-10-28 13:05:00 UTC" style: exact, for operators.
export function formatTime(iso) {
  if (!iso) return "—";
  return iso.replace("T", " ").replace("Z", " UTC");
}

// "3 min ago", "in 2 h".
export function relativeTime(iso) {
  if (!iso) return "";
  const seconds = Math.round((new Date(iso).getTime() - Date.now()) / 1000);
  const format = new Intl.RelativeTimeFormat("en", { numeric: "auto", style: "short" });
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, "second");
  if (abs < 3600) return format.format(Math.round(seconds / 60), "minute");
  if (abs < 86400) return format.format(Math.round(seconds / 3600), "hour");
  return format.format(Math.round(seconds / 86400), "day");
}

export function statusBadge(status) {
  return h("span", { class: `badge status-${status}` }, status);
}

// A table from column definitions [{title, cell: (row) => node|text}].
export function table(columns, rows, { caption, rowAttributes } = {}) {
  return h(
    "table",
    {},
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c.title)))),
    h(
      "tbody",
      {},
      rows.map((row) => h("tr", rowAttributes ? rowAttributes(row) : {}, columns.map((c) => h("td", {}, c.cell(row))))),
    ),
  );
}

// A notice for an endpoint this server does not have yet.
export function unavailable(what) {
  return h("p", { class: "notice", role: "note" }, `${what} is not available on this server yet.`);
}

export function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, error.message || String(error));
}

// A keyset-paginated list (docs/api.md "Keyset pagination") shown in `list`
// with a "Load more" button: `path(cursor)` is the URL of a page, `render`
// turns all items loaded so far into the list's content. load() fetches the
// first page again (after a filter changed); the button appends the next.
export function pagedList({ fetchJson, path, render, signal }) {
  const list = h("div");
  const more = h("button", { type: "button", class: "quiet", hidden: true }, "Load more");
  let items = [];
  let cursor = null;
  async function load(append = false) {
    const page = await fetchJson(path(append ? cursor : null));
    if (signal.aborted) return;
    items = append ? items.concat(page.items) : page.items;
    cursor = page.next_cursor;
    more.hidden = !cursor;
    list.replaceChildren(render(items));
  }
  more.addEventListener("click", () => load(true).catch((error) => list.replaceChildren(errorBox(error))));
  return { nodes: [list, more], load, list };
}
