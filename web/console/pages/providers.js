// Providers: each channel's providers and, for a channel with a list of
// them, each entry's circuit as the answering process has it
// (GET /v1/providers).
import { api } from "../api.js";
import { errorBox, formatTime, h, table } from "../dom.js";

const REFRESH_MS = 5000;

function circuitBadge(p) {
  if (p.circuit === null) return h("span", { class: "muted" }, "single provider");
  const label = p.circuit === "half_open" ? "half-open" : p.circuit;
  return h("span", { class: `badge circuit-${p.circuit}`, "data-circuit": p.circuit }, label);
}

export async function providersPage(main, _params, signal) {
  async function render() {
    let body;
    try {
      body = await api("/v1/providers");
    } catch (error) {
      if (!signal.aborted) main.replaceChildren(h("h1", {}, "Providers"), errorBox(error));
      return;
    }
    if (signal.aborted) return;
    main.replaceChildren(
      h("h1", {}, "Providers"),
      h("p", { class: "muted" }, "Circuits are this server process's own; every worker's are in its /metrics."),
      table(
        [
          { title: "channel", cell: (p) => p.channel },
          { title: "provider", cell: (p) => h("strong", {}, p.name) },
          { title: "kind", cell: (p) => p.kind },
          { title: "weight", cell: (p) => (p.weight === null ? "" : String(p.weight)) },
          { title: "circuit", cell: circuitBadge },
          { title: "failures in a row", cell: (p) => (p.consecutive_failures === null ? "" : String(p.consecutive_failures)) },
          { title: "open until", cell: (p) => (p.open_until ? h("time", { datetime: p.open_until }, formatTime(p.open_until)) : "") },
        ],
        body.providers,
        { rowAttributes: (p) => ({ "data-provider": `${p.channel}/${p.name}` }) },
      ),
    );
  }
  await render();
  const timer = setInterval(() => render().catch(() => {}), REFRESH_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
}
