// Overview: the last hour at a glance, refreshed every few seconds.
import {api, channelNames, optionalApi} from '../api.js';
import {deliveriesChart} from '../chart.js';
import {h} from '../dom.js';

const REFRESH_MS = 5000;
function card(label, value, detail, name) {
  return h("div", { class: "card stat", "data-stat": name }, h("span", { class: "stat-label" }, label), h("strong", { class: "stat-value" }, value), detail ? h("span", { class: "muted" }, detail) : null);
}

function seconds(value) {
  if (value < 1) return "0 s";
  if (value < 120) return `${Math.round(value)} s`;
  if (value < 7200) return `${Math.round(value / 60)} min`;
  return `${Math.round(value / 3600)} h`;
}

export async function overviewPage(main, _params, signal) {
  const channelOptions = ['', ...(await channelNames())];
  let channel = "";
  const select =
      h('select', {id: 'chart-channel', 'aria-label': 'Channel'},
        channelOptions.map((c) => h('option', {value: c}, c || 'all channels')));
  const cards = h("div", { class: "cards" });
  const chartBox = h("div", { class: "chart-box" });
  const byChannel = h("div");
  let stats = { minutes: [] };
  const drawChart = () => chartBox.replaceChildren(deliveriesChart(stats.minutes, { minutes: 60, channel }));
  select.addEventListener("change", () => {
    channel = select.value;
    drawChart();
  });
  main.replaceChildren(
    h("h1", {}, "Overview"),
    cards,
    h("section", { class: "card" }, h("div", { class: "section-head" }, h("h2", {}, "Deliveries per minute, last hour"), select), chartBox, byChannel),
  );

  async function refresh() {
    const [overview, perMinute, outbox] = await Promise.all([
      api("/v1/stats/overview"),
      api("/v1/stats/deliveries?minutes=60"),
      optionalApi("/v1/outbox/stats").catch(() => null),
    ]);
    if (signal.aborted) return;
    stats = perMinute;
    const rate = overview.failure_rate;
    cards.replaceChildren(
      card("Queue depth", overview.queue_depth, `${overview.due} due now, ${overview.sending} sending`, "queue"),
      card("Schedule lag", seconds(overview.schedule_lag_seconds), `${overview.schedules_due} schedules overdue`, "lag"),
      card("Outbox pending", outbox ? outbox.pending : "—", outbox ? `oldest ${seconds(outbox.oldest_pending_age_seconds || 0)}` : "not available on this server", "outbox"),
      card("Failure rate", rate === null ? "—" : `${(rate * 100).toFixed(1)} %`, `${overview.last_hour.failed || 0} failed, ${overview.last_hour.sent || 0} sent in the last hour`, "failure"),
    );
    drawChart();
    const table = {};
    for (const row of perMinute.minutes) {
      table[row.channel] = table[row.channel] || {};
      table[row.channel][row.status] = (table[row.channel][row.status] || 0) + row.count;
    }
    const statuses = [...new Set(perMinute.minutes.map((r) => r.status))].sort();
    byChannel.replaceChildren(
      Object.keys(table).length === 0
        ? h("p", { class: "muted" }, "No deliveries in the last hour.")
        : h(
            "table",
            { class: "compact" },
            h("caption", {}, "Last hour by channel"),
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "channel"), statuses.map((s) => h("th", { scope: "col" }, s)))),
            h("tbody", {}, Object.keys(table).sort().map((c) => h("tr", {}, h("th", { scope: "row" }, c), statuses.map((s) => h("td", {}, table[c][s] || 0))))),
          ),
    );
  }

  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), REFRESH_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
}
