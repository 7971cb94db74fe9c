// Deliveries per minute as stacked bars by status (an SVG, no library).
import { h, svg } from "./dom.js";

export const STATUS_ORDER = ["sent", "queued", "sending", "skipped", "failed", "canceled"];
export const STATUS_COLORS = {
  sent: "#16a34a",
  queued: "#2563eb",
  sending: "#f59e0b",
  skipped: "#9ca3af",
  failed: "#dc2626",
  canceled: "#6b7280",
};

// Minute starts (ms) of the last `minutes` minutes, the current one last.
function minuteSlots(minutes, now = Date.now()) {
  const current = Math.floor(now / 60000) * 60000;
  return Array.from({ length: minutes }, (_, i) => current - (minutes - 1 - i) * 60000);
}

// rows: [{at, channel, status, count}] of GET /v1/stats/deliveries;
// channel: one channel or "" for all.
export function deliveriesChart(rows, { minutes = 60, channel = "" } = {}) {
  const slots = minuteSlots(minutes);
  const index = new Map(slots.map((t, i) => [t, i]));
  const counts = slots.map(() => ({}));
  const totals = {};
  for (const row of rows) {
    if (channel && row.channel !== channel) continue;
    const i = index.get(new Date(row.at).getTime());
    if (i === undefined) continue;
    counts[i][row.status] = (counts[i][row.status] || 0) + row.count;
    totals[row.status] = (totals[row.status] || 0) + row.count;
  }
  const statuses = STATUS_ORDER.filter((s) => totals[s]).concat(Object.keys(totals).filter((s) => !STATUS_ORDER.includes(s)));
  const peak = Math.max(1, ...counts.map((c) => Object.values(c).reduce((a, b) => a + b, 0)));
  const scale = niceCeiling(peak);

  const width = 760, height = 240, left = 44, right = 8, top = 10, bottom = 28;
  const plotW = width - left - right, plotH = height - top - bottom;
  const barW = plotW / minutes;
  const y = (v) => top + plotH - (v / scale) * plotH;

  const grid = [];
  for (let k = 0; k <= 4; k++) {
    const value = (scale * k) / 4;
    grid.push(
      svg("line", { x1: left, x2: width - right, y1: y(value), y2: y(value), class: "grid" }),
      svg("text", { x: left - 6, y: y(value) + 4, "text-anchor": "end", class: "tick" }, formatCount(value)),
    );
  }
  const bars = [];
  counts.forEach((c, i) => {
    let base = 0;
    const x = left + i * barW + 1;
    const label = new Date(slots[i]).toISOString().slice(11, 16);
    for (const status of statuses) {
      const n = c[status] || 0;
      if (!n) continue;
      bars.push(
        svg(
          "rect",
          { x, y: y(base + n), width: Math.max(1, barW - 2), height: y(base) - y(base + n), fill: STATUS_COLORS[status] || "#7c3aed", class: "bar", "data-status": status },
          svg("title", {}, `${label} UTC — ${status}: ${n}`),
        ),
      );
      base += n;
    }
  });
  const labels = [];
  slots.forEach((t, i) => {
    if ((minutes - 1 - i) % 10 !== 0) return;
    labels.push(svg("text", { x: left + i * barW + barW / 2, y: height - 8, "text-anchor": "middle", class: "tick" }, new Date(t).toISOString().slice(11, 16)));
  });
  const total = Object.values(totals).reduce((a, b) => a + b, 0);
  const summary = statuses.map((s) => `${totals[s]} ${s}`).join(", ") || "no deliveries";
  const chart = svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": `Deliveries per minute, last ${minutes} minutes: ${summary}` },
    ...grid,
    ...bars,
    ...labels,
  );
  const legend = h(
    "ul",
    { class: "legend" },
    statuses.map((s) => h("li", {}, h("span", { class: "swatch", style: `background:${STATUS_COLORS[s] || "#7c3aed"}` }), `${s} ${totals[s]}`)),
  );
  return h("figure", { class: "chart-figure", "data-total": total }, chart, legend);
}

function niceCeiling(value) {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function formatCount(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
