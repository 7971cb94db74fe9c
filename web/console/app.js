// The console: sign-in with an account (or, while none exists, the server's
// API key), then a page per hash route.
import { accountsExist, can, resumeSession, session, signIn, signOut as endSession } from "./api.js";
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
import { accountsPage } from "./pages/accounts.js";
import { auditPage } from "./pages/audit.js";
import { templatePage, templatesPage } from "./pages/templates.js";

// Route pattern → page. A page is (main, params, signal) => void; it stops
// its timers when `signal` aborts (the next navigation).
const ROUTES = [
  [/^\/overview$/, overviewPage, "Overview"],
  [/^\/deliveries$/, deliveriesPage, "Deliveries"],
  [/^\/notifications\/(\d+)$/, notificationPage, "Notification"],
  [/^\/users$/, usersPage, "Users"],
  [/^\/users\/(\d+)$/, userPage, "User"],
  [/^\/templates$/, templatesPage, "Templates"],
  [/^\/templates\/([a-z]+(?:\.[a-z_]+)*)$/, templatePage, "Template"],
  [/^\/schedules$/, schedulesPage, "Schedules"],
  [/^\/reports$/, reportsPage, "Reports"],
  [/^\/outbox$/, outboxPage, "Outbox"],
  [/^\/sink$/, sinkPage, "Sink inbox"],
  [/^\/providers$/, providersPage, "Providers"],
  [/^\/accounts$/, accountsPage, "Accounts"],
  [/^\/audit$/, auditPage, "Audit log"],
];

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const signOut = document.getElementById("sign-out");
let current = null;

const who = document.getElementById("who");
const accountsLink = document.getElementById("nav-accounts");
const auditLink = document.getElementById("nav-audit");

function signInFailure(error, wrong) {
  if (error.status === 401) return wrong;
  if (error.status === 429) {
    const minutes = Math.max(1, Math.ceil(Number(error.retryAfter || 60) / 60));
    return `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
  }
  return error.message;
}

async function signInPage() {
  nav.hidden = true;
  signOut.hidden = true;
  who.hidden = true;
  document.title = "Sign in — chopar console";
  let withAccounts = true;
  try {
    withAccounts = await accountsExist();
  } catch (error) {
    main.replaceChildren(errorBox(error));
    return;
  }
  const message = h("p", { role: "alert", class: "error", hidden: true });
  let form, first, credentials, wrong;
  if (withAccounts) {
    const email = h("input", { id: "email", name: "email", type: "email", autocomplete: "username", required: true });
    const password = h("input", { id: "password", name: "password", type: "password", autocomplete: "current-password", required: true });
    first = email;
    credentials = () => ({ email: email.value.trim(), password: password.value });
    wrong = "Wrong email or password.";
    form = h(
      "form",
      { class: "card sign-in", "aria-labelledby": "sign-in-title" },
      h("h1", { id: "sign-in-title" }, "Sign in"),
      h("label", { for: "email" }, "Email"),
      email,
      h("label", { for: "password" }, "Password"),
      password,
      message,
      h("button", { type: "submit" }, "Sign in"),
    );
  } else {
    const key = h("input", { id: "api-key", name: "api-key", type: "password", autocomplete: "off", required: true, "aria-describedby": "api-key-help" });
    first = key;
    credentials = () => ({ api_key: key.value.trim() });
    wrong = "That API key is not valid.";
    form = h(
      "form",
      { class: "card sign-in", "aria-labelledby": "sign-in-title" },
      h("h1", { id: "sign-in-title" }, "Sign in"),
      h("p", { class: "muted" }, "No console account exists yet. Sign in with the server's API key, then add accounts under Accounts (or run chopar users add)."),
      h("label", { for: "api-key" }, "API key"),
      key,
      h("p", { id: "api-key-help", class: "muted" }, "The server's API key ([server] api_key; printed by chopar serve). It opens a session of this browser; the key itself is not kept."),
      message,
      h("button", { type: "submit" }, "Sign in"),
    );
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.hidden = true;
    try {
      await signIn(credentials());
      if (!location.hash || location.hash === "#/") location.hash = "#/overview";
      route();
    } catch (error) {
      message.textContent = signInFailure(error, wrong);
      message.hidden = false;
      first.focus();
    }
  });
  main.replaceChildren(form);
  first.focus();
}

function route() {
  if (current) current.abort();
  current = new AbortController();
  if (!session()) return signInPage();
  nav.hidden = false;
  signOut.hidden = false;
  const signedIn = session();
  who.textContent = `${signedIn.account ? signedIn.account.email : "API key"} (${signedIn.role})`;
  who.hidden = false;
  accountsLink.hidden = !can("admin");
  auditLink.hidden = !can("admin");
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

signOut.addEventListener("click", async () => {
  await endSession().catch(() => {});
  route();
});
window.addEventListener("chopar-signed-out", route);
window.addEventListener("hashchange", route);
resumeSession()
  .then(route)
  .catch((error) => main.replaceChildren(errorBox(error)));
