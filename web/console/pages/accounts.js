// Accounts (admins): the console's accounts — add one, change its role,
// delete it — and the open sessions, each of which can be revoked
// (docs/api.md "Console accounts").
import { api, session } from "../api.js";
import { errorBox, formatTime, h, relativeTime, table } from "../dom.js";

const ROLES = ["viewer", "operator", "admin"];

function roleSelect(id, value) {
  const select = h("select", { id }, ROLES.map((role) => h("option", { value: role }, role)));
  select.value = value;
  return select;
}

export async function accountsPage(main, _params, signal) {
  const message = h("div", { "aria-live": "polite" });
  const accountsList = h("div");
  const sessionsList = h("div");
  const notice = (text) => message.replaceChildren(h("p", { class: "notice", role: "status" }, text));
  const failed = (error) => message.replaceChildren(errorBox(error));

  async function loadSessions() {
    const { items } = await api("/v1/console/sessions");
    if (signal.aborted) return;
    sessionsList.replaceChildren(
      items.length === 0
        ? h("p", { class: "muted" }, "No open sessions.")
        : table(
            [
              { title: "id", cell: (s) => String(s.id) },
              { title: "account", cell: (s) => s.email || "API key" },
              { title: "role", cell: (s) => s.role },
              { title: "signed in", cell: (s) => h("time", { datetime: s.created_at, title: formatTime(s.created_at) }, relativeTime(s.created_at)) },
              { title: "last seen", cell: (s) => h("time", { datetime: s.last_seen_at, title: formatTime(s.last_seen_at) }, relativeTime(s.last_seen_at)) },
              { title: "expires", cell: (s) => formatTime(s.expires_at) },
              { title: "address", cell: (s) => s.address },
              { title: "browser", cell: (s) => h("span", { class: "muted", title: s.user_agent }, s.user_agent.slice(0, 40)) },
              {
                title: "",
                cell: (s) => {
                  const button = h("button", { type: "button", class: "small quiet", "aria-label": `Revoke session ${s.id}` }, "Revoke");
                  button.addEventListener("click", async () => {
                    button.disabled = true;
                    try {
                      await api(`/v1/console/sessions/${s.id}/revoke`, { method: "POST" });
                      notice(`Session ${s.id} is revoked.`);
                      await loadSessions();
                    } catch (error) {
                      failed(error);
                      button.disabled = false;
                    }
                  });
                  return button;
                },
              },
            ],
            items,
            { rowAttributes: (s) => ({ "data-session": s.id }) },
          ),
    );
  }

  async function loadAccounts() {
    const { items } = await api("/v1/console/accounts");
    if (signal.aborted) return;
    const mine = session()?.account?.id;
    accountsList.replaceChildren(
      items.length === 0
        ? h("p", { class: "muted" }, "No account yet: add the first admin below; then the API key no longer signs in.")
        : table(
            [
              { title: "id", cell: (a) => String(a.id) },
              { title: "email", cell: (a) => h("strong", {}, a.email) },
              {
                title: "role",
                cell: (a) => {
                  const select = roleSelect(`role-${a.id}`, a.role);
                  select.setAttribute("aria-label", `Role of ${a.email}`);
                  select.addEventListener("change", async () => {
                    try {
                      await api(`/v1/console/accounts/${a.id}`, { method: "PATCH", body: { role: select.value } });
                      notice(`${a.email} is ${select.value} now.`);
                    } catch (error) {
                      select.value = a.role;
                      failed(error);
                    }
                  });
                  return select;
                },
              },
              { title: "added", cell: (a) => formatTime(a.created_at) },
              {
                title: "",
                cell: (a) => {
                  if (a.id === mine) return h("span", { class: "muted" }, "you");
                  const button = h("button", { type: "button", class: "small quiet", "aria-label": `Delete account ${a.email}` }, "Delete");
                  button.addEventListener("click", async () => {
                    if (!window.confirm(`Delete the account ${a.email} and sign it out everywhere?`)) return;
                    try {
                      await api(`/v1/console/accounts/${a.id}`, { method: "DELETE" });
                      notice(`${a.email} is deleted.`);
                      await Promise.all([loadAccounts(), loadSessions()]);
                    } catch (error) {
                      failed(error);
                    }
                  });
                  return button;
                },
              },
            ],
            items,
            { rowAttributes: (a) => ({ "data-account": a.id, "data-role": a.role }) },
          ),
    );
  }

  const email = h("input", { id: "new-email", type: "email", required: true, autocomplete: "off" });
  const role = roleSelect("new-role", "viewer");
  const password = h("input", { id: "new-password", type: "password", required: true, minlength: 12, maxlength: 1024, autocomplete: "new-password" });
  const form = h(
    "form",
    { class: "inline-form", "aria-label": "Add an account" },
    h("label", { for: "new-email" }, "Email", email),
    h("label", { for: "new-role" }, "Role", role),
    h("label", { for: "new-password" }, "Password (12 or more characters)", password),
    h("button", { type: "submit" }, "Add account"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const account = await api("/v1/console/accounts", { method: "POST", body: { email: email.value.trim(), role: role.value, password: password.value } });
      notice(`${account.email} is added as ${account.role}.`);
      form.reset();
      await loadAccounts();
    } catch (error) {
      failed(error);
    }
  });

  main.replaceChildren(
    h("h1", {}, "Accounts"),
    message,
    h("section", { class: "card", "aria-labelledby": "accounts-title" }, h("h2", { id: "accounts-title" }, "Console accounts"), accountsList, form),
    h("section", { class: "card", "aria-labelledby": "sessions-title" }, h("h2", { id: "sessions-title" }, "Open sessions"), sessionsList),
  );
  await Promise.all([loadAccounts(), loadSessions()]);
}
