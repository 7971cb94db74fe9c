// The console: sign-in with the API key, then a page per hash route.
import { api, apiKey, setApiKey } from "./api.js";
import { h, errorBox } from "./dom.js";
import { overviewPage } from "./pages/overview.js";
import { deliveriesPage } from "./pages/deliveries.js";
import { notificationPage } from "./pages/notification.js";
import { usersPage, userPage } from "./pages/users.js";
import { schedulesPage } from "./pages/schedules.js";
import { reportsPage } from "./pages/reports.js";
import { outboxPage } from "./pages/outbox.js";
import { sinkPage } from "./pages/sink.js";
import { providersPage } from "./pages/providers.js";

// Route pattern → page. A page is (main, params, signal) => void; it stops
// its timers when `signal` aborts (the next navigation).
const ROUTES = [
  [/^\/overview$/, overviewPage, "Overview"],
  [/^\/deliveries$/, deliveriesPage, "Deliveries"],
  [/^\/notifications\/(\d+)$/, notificationPage, "Notification"],
  [/^\/users$/, usersPage, "Users"],
  [/^\/users\/(\d+)$/, userPage, "User"],
  [/^\/schedules$/, schedulesPage, "Schedules"],
  [/^\/reports$/, reportsPage, "Reports"],
  [/^\/outbox$/, outboxPage, "Outbox"],
  [/^\/sink$/, sinkPage, "Sink inbox"],
  [/^\/providers$/, providersPage, "Providers"],
];

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const signOut = document.getElementById("sign-out");
let current = null;

function signInPage() {
  nav.hidden = true;
  signOut.hidden = true;
  document.title = "Sign in — chopar console";
  const input = h("input", { id: "api-key", name: "api-key", type: "password", autocomplete: "off", required: true, "aria-describedby": "api-key-help" });
  const message = h("p", { role: "alert", class: "error", hidden: true });
  const form = h(
    "form",
    { class: "card sign-in", "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title" }, "Sign in"),
    h("label", { for: "api-key" }, "API key"),
    input,
    h("p", { id: "api-key-help", class: "muted" }, "The server's API key ([server] api_key; printed by chopar serve). It stays in this tab only."),
    message,
    h("button", { type: "submit" }, "Sign in"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.hidden = true;
    try {
      await api("/v1/stats/overview", { key: input.value.trim() });
      setApiKey(input.value.trim());
      if (!location.hash || location.hash === "#/") location.hash = "#/overview";
      route();
    } catch (error) {
      message.textContent = error.status === 401 ? "That API key is not valid." : error.message;
      message.hidden = false;
      input.focus();
    }
  });
  main.replaceChildren(form);
  input.focus();
}

function route() {
  if (current) current.abort();
  current = new AbortController();
  if (!apiKey()) return signInPage();
  nav.hidden = false;
  signOut.hidden = false;
  const path = (location.hash || "#/overview").slice(1);
  for (const [pattern, page, title] of ROUTES) {
    const match = path.match(pattern);
    if (!match) continue;
    document.title = `${title} — chopar console`;
    for (const link of nav.querySelectorAll("a")) {
      const active = path.startsWith(link.getAttribute("href").slice(1).replace(/s$/, ""));
      if (active) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    main.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    Promise.resolve(page(main, match.slice(1), current.signal)).catch((error) => main.replaceChildren(errorBox(error)));
    return;
  }
  location.hash = "#/overview";
}

signOut.addEventListener("click", () => {
  setApiKey(null);
  route();
});
window.addEventListener("chopar-signed-out", route);
window.addEventListener("hashchange", route);
route();
