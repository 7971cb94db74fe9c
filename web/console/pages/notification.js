// One notification: its in-app state, its workflow's steps and each
// channel's delivery.
import { api } from "../api.js";
import { h, table, statusBadge, formatTime } from "../dom.js";
import { workflowCard } from "./workflow_timeline.js";

const REFRESH_MS = 3000;

export async function notificationPage(main, [id], signal) {
  async function render() {
    const n = await api(`/v1/notifications/${id}`);
    if (signal.aborted) return;
    main.replaceChildren(
      h("p", {}, h("a", { href: "#/deliveries" }, "← Deliveries")),
      h("h1", {}, `Notification #${n.id}`),
      h(
        "section",
        { class: "card" },
        h("h2", {}, n.title),
        n.body ? h("p", {}, n.body) : null,
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "type"), h("dd", {}, n.type),
          h("dt", {}, "user"), h("dd", {}, h("a", { href: `#/users/${n.user_id}` }, String(n.user_id))),
          h("dt", {}, "link"), h("dd", {}, n.link || "—"),
          h("dt", {}, "created"), h("dd", {}, formatTime(n.created_at)),
          h("dt", {}, "in-app"), h("dd", { "data-in-app": n.read_at ? "read" : "unread" }, n.read_at ? `read ${formatTime(n.read_at)}` : "unread"),
          h("dt", {}, "critical"), h("dd", {}, n.critical ? "yes" : "no"),
          h("dt", {}, "dedup key"), h("dd", {}, n.dedup_key || "—"),
        ),
        h("details", {}, h("summary", {}, "data"), h("pre", {}, JSON.stringify(n.data, null, 2))),
      ),
      workflowCard(n.workflow),
      h(
        "section",
        { class: "card" },
        h("h2", {}, "Channels"),
        n.deliveries.length === 0
          ? h("p", { class: "muted" }, "No channel was chosen for this notification (in-app only).")
          : table(
              [
                { title: "channel", cell: (d) => d.channel },
                { title: "status", cell: (d) => statusBadge(d.status) },
                { title: "attempts", cell: (d) => String(d.attempts) },
                { title: "last error", cell: (d) => h("span", { class: "error-text" }, d.last_error || "") },
                { title: "updated", cell: (d) => formatTime(d.updated_at) },
              ],
              n.deliveries,
              { rowAttributes: (d) => ({ "data-channel": d.channel, "data-status": d.status }) },
            ),
      ),
    );
  }
  await render();
  const timer = setInterval(() => render().catch(() => {}), REFRESH_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
}
