// Outbox: the relay's backlog (GET /v1/outbox/stats), once the server has it.
import { optionalApi } from "../api.js";
import { h, unavailable } from "../dom.js";

const REFRESH_MS = 5000;

export async function outboxPage(main, _params, signal) {
  async function render() {
    const stats = await optionalApi("/v1/outbox/stats");
    if (signal.aborted) return false;
    if (stats === null) {
      main.replaceChildren(h("h1", {}, "Outbox"), unavailable("The outbox relay (GET /v1/outbox/stats)"));
      return false;
    }
    const rows = [
      ["pending", "events not yet published"],
      ["dispatched", "events published and kept for the retention period"],
      ["failed_attempts", "publish attempts that failed"],
      ["oldest_pending_age_seconds", "age of the oldest pending event, in seconds"],
    ];
    main.replaceChildren(
      h("h1", {}, "Outbox"),
      h("div", { class: "cards" }, rows.map(([key, help]) => h("div", { class: "card stat", "data-stat": key }, h("span", { class: "stat-label" }, key.replaceAll("_", " ")), h("strong", { class: "stat-value" }, String(stats[key] ?? "—")), h("span", { class: "muted" }, help)))),
    );
    return true;
  }
  if (!(await render())) return;
  const timer = setInterval(() => render().catch(() => {}), REFRESH_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
}
