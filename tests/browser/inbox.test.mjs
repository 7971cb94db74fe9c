// The inbox's states and actions in a real browser: the headless client
// (/widget/chopar-client.js) on a host page of another origin, and the bell
// built on it — seen, read, unread, archived, snoozed, actions, tabs with
// their counts, the keyboard, Russian, and changes made elsewhere reaching
// an open bell.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { chromiumPath, launch, screenshotPath } from "./lib/browser.mjs";
import { Chopar, skipReason } from "./lib/chopar.mjs";
import { startHostPage } from "./lib/host.mjs";

const skip = skipReason() || (chromiumPath() ? false : "chromium is not installed");
const USER_CLIENT = 401;
const USER_STATES = 402;
const USER_ACTIONS = 403;
const USER_TABS = 404;
const USER_LIVE = 405;
const USER_KEYS = 406;
const USER_TENANT = 407;
const USER_SNOOZED = 408;

describe("chopar-client and the bell's inbox states", { skip }, () => {
  let chopar, host, browser, page;
  const tokens = {};

  const bell = () => page.locator("chopar-bell");
  const itemIds = () => page.locator("chopar-bell li[data-id]").evaluateAll((items) => items.map((li) => Number(li.dataset.id)));
  const item = (id) => page.locator(`chopar-bell li[data-id="${id}"]`);
  const waitAttribute = (name, value) =>
    page.waitForFunction(([name, value]) => document.querySelector("chopar-bell")?.getAttribute(name) === String(value), [name, value], { timeout: 5000 });
  const shadowFocus = () => page.evaluate(() => {
    const active = document.querySelector("chopar-bell").shadowRoot.activeElement;
    return active ? { label: active.getAttribute("aria-label") || active.textContent, role: active.getAttribute("role"), focus: active.dataset.focus } : null;
  });

  // The user's notification as the server has it.
  const stored = (id) => chopar.call("GET", `/v1/notifications/${id}`);
  // The bell shows a change at once and sends it after: wait for chopar's
  // answer to the POST /v1/inbox/<change> that `act` causes.
  async function answered(change, act) {
    const response = page.waitForResponse((r) => r.url().endsWith(`/v1/inbox/${change}`) && r.request().method() === "POST");
    await act();
    assert.equal((await response).status(), 200);
  }
  // A subscriber call with the user's token, as the application's own page could make it.
  async function inbox(user, method, path, body) {
    const response = await fetch(`${chopar.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${tokens[user]}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(response.status, 200, `${method} ${path} → ${response.status} ${await response.clone().text()}`);
    return response.json();
  }
  const count = async (user, kind) => (await inbox(user, "GET", `/v1/inbox/count?count=${kind}`)).count;

  // The host page with a bell of `user` and these attributes.
  async function openBell(user, attributes = {}) {
    const params = new URLSearchParams({ token: tokens[user], ...attributes });
    await page.goto(`${host.url}/app?${params}`);
    await page.waitForFunction(() => document.querySelector("chopar-bell")?.hasAttribute("data-unseen"));
  }

  async function openPanel() {
    await bell().locator(".bell").click();
    await page.getByRole("dialog").waitFor();
  }

  before(async () => {
    chopar = new Chopar({ name: "inbox" });
    await chopar.start();
    await chopar.call("PUT", "/v1/tenants/acme", { name: "Acme Ltd" });
    for (const id of [USER_CLIENT, USER_STATES, USER_ACTIONS, USER_TABS, USER_LIVE, USER_KEYS, USER_TENANT, USER_SNOOZED]) {
      await chopar.call("PUT", `/v1/users/${id}`, { locale: "en", ...(id === USER_TENANT ? { tenants: ["acme"] } : {}) });
      tokens[id] = await chopar.token(id);
    }
    const attr = (s) => String(s).replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
    host = await startHostPage((url) => {
      if (url.pathname === "/client") {
        return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Own inbox</title>
<script type="module" src="${chopar.url}/widget/chopar-client.js"></script></head><body><h1>Own inbox</h1></body></html>`;
      }
      const attributes = [...url.searchParams].map(([name, value]) => ` ${name}="${attr(value)}"`).join("");
      return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vazifalar</title>
<script type="module" src="${chopar.url}/widget/chopar-bell.js"></script>
<style>body{margin:0;font:15px system-ui,sans-serif;background:#f3f4f6;color:#111827}
header{display:flex;align-items:center;justify-content:space-between;padding:10px 24px;background:#fff;border-bottom:1px solid #e5e7eb}
main{padding:24px;max-width:640px}</style></head>
<body><header><a href="/app">Vazifalar</a><chopar-bell server="${attr(chopar.url)}"${attributes}></chopar-bell></header>
<main><h1>${attr(url.pathname)}</h1></main></body></html>`;
    });
    browser = await launch({ viewport: { width: 900, height: 680 } });
    page = await browser.context.newPage();
  });

  after(async () => {
    await browser?.close();
    await host?.close();
    await chopar?.dispose();
  });

  it("serves chopar-client.js to any origin like the bell, as a module that is also window.ChoparClient", async () => {
    const response = await fetch(`${chopar.url}/widget/chopar-client.js`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    assert.equal(response.headers.get("cache-control"), "no-cache");
    assert.match(await response.text(), /export class ChoparClient/);
    await page.goto(`${host.url}/client`);
    await page.waitForFunction(() => typeof window.ChoparClient === "function");
    const fromImport = await page.evaluate(async (url) => (await import(url)).ChoparClient === window.ChoparClient, `${chopar.url}/widget/chopar-client.js`);
    assert.equal(fromImport, true, "the module and the global are one class");
  });

  it("headless: lists, counts and changes every state, and the stream tells of each change", async () => {
    const a = await chopar.notify(USER_CLIENT, { title: "Task one", category: "tasks" });
    const b = await chopar.notify(USER_CLIENT, { title: "Task two", category: "tasks" });
    const c = await chopar.notify(USER_CLIENT, { title: "Invoice", category: "billing" });
    await page.goto(`${host.url}/client`);
    await page.waitForFunction(() => typeof window.ChoparClient === "function");
    await page.evaluate(async ([baseUrl, token]) => {
      window.events = [];
      window.client = new window.ChoparClient({ baseUrl, token });
      await new Promise((open) =>
        window.client.subscribe({
          open,
          notification: (n) => window.events.push({ kind: "notification", id: n.id }),
          state: (s) => window.events.push({ kind: "state", ...s }),
          counts: (counts) => window.events.push({ kind: "counts", ...counts }),
        }),
      );
    }, [chopar.url, tokens[USER_CLIENT]]);
    const run = (body) => page.evaluate(`(async (client) => (${body}))(window.client)`);
    // Waits for a stream event matching `fields` and returns it.
    const event = (fields) =>
      page
        .waitForFunction((fields) => window.events.find((e) => Object.entries(fields).every(([k, v]) => JSON.stringify(e[k]) === JSON.stringify(v))), fields, { timeout: 5000 })
        .then((handle) => handle.jsonValue());

    assert.deepEqual((await run("client.list({ limit: 10 })")).items.map((n) => n.id), [c.id, b.id, a.id]);
    assert.deepEqual((await run(`client.list({ category: "tasks" })`)).items.map((n) => n.id), [b.id, a.id]);
    assert.equal(await run("client.count()"), 3);
    assert.equal(await run(`client.count({ count: "unread", category: "billing" })`), 1);

    assert.equal(await run(`client.markSeen([${a.id}])`), 1);
    assert.equal(await run(`client.markSeen([${a.id}])`), 0, "a repeat changes nothing");
    await event({ kind: "state", change: "seen", ids: [a.id] });
    await event({ kind: "counts", unseen: 2, unread: 3 });
    assert.ok((await stored(a.id)).seen_at);

    assert.equal(await run(`client.markRead({ ids: [${b.id}] })`), 1);
    await event({ kind: "state", change: "read", ids: [b.id] });
    assert.equal(await run(`client.count({ count: "unread" })`), 2);
    assert.ok((await stored(b.id)).seen_at, "read implies seen");
    assert.equal(await run(`client.markUnread([${b.id}])`), 1);
    await event({ kind: "state", change: "unread", ids: [b.id] });
    assert.equal((await stored(b.id)).read_at, null);

    assert.equal(await run(`client.archive([${c.id}])`), 1);
    await event({ kind: "state", change: "archived", ids: [c.id] });
    assert.deepEqual((await run("client.list()")).items.map((n) => n.id), [b.id, a.id]);
    assert.deepEqual((await run("client.list({ archived: true })")).items.map((n) => n.id), [c.id]);
    assert.equal(await run(`client.unarchive([${c.id}])`), 1);
    await event({ kind: "state", change: "unarchived", ids: [c.id] });

    assert.equal(await run(`client.snooze({ ids: [${a.id}], minutes: 60 })`), 1);
    const snoozed = await event({ kind: "state", change: "snoozed", ids: [a.id] });
    assert.ok(Date.parse(snoozed.snoozed_until) > Date.now() + 59 * 60000);
    assert.deepEqual((await run("client.list({ snoozed: true })")).items.map((n) => n.id), [a.id]);
    assert.equal(await run(`client.count({ count: "unread" })`), 2, "a snoozed notification is not counted");
    assert.equal(await run(`client.unsnooze([${a.id}])`), 1);
    await event({ kind: "state", change: "unsnoozed", ids: [a.id] });
    assert.equal(await run(`client.count({ count: "unread" })`), 3);
    assert.equal(await run("client.count()"), 1, "unsnoozed early it stays seen (only the invoice is unseen)");

    const live = await chopar.notify(USER_CLIENT, { title: "Live" });
    await event({ kind: "notification", id: live.id });

    assert.equal(await run("client.markRead({ all: true })"), 4);
    assert.equal(await run(`client.count({ count: "unread" })`), 0);

    // A bad request rejects with the status and chopar's code.
    const error = await run(`client.snooze({ ids: [${a.id}], minutes: 0 }).then(() => null, (e) => ({ name: e.name, status: e.status, code: e.code }))`);
    assert.deepEqual(error, { name: "ChoparError", status: 400, code: "invalid_field" });
    await run("client.close()");
  });

  it("headless: asks getToken for a new token after a 401, for calls and for the stream", async () => {
    await page.goto(`${host.url}/client`);
    await page.waitForFunction(() => typeof window.ChoparClient === "function");
    const result = await page.evaluate(async ([baseUrl, token]) => {
      let asked = 0;
      const getToken = async () => (asked++, token);
      const client = new window.ChoparClient({ baseUrl, token: "v2.1.0.1.expired", getToken });
      const listed = (await client.list()).items.length;
      const stale = new window.ChoparClient({ baseUrl, token: "v2.1.0.1.expired", getToken });
      await new Promise((open) => stale.subscribe({ open }));
      stale.close();
      return { listed, asked, token: client.token };
    }, [chopar.url, tokens[USER_CLIENT]]);
    assert.deepEqual(result, { listed: 4, asked: 2, token: tokens[USER_CLIENT] });
  });

  it("headless: reopens the stream after the server restarts with Last-Event-ID, and gets what was created meanwhile once", async () => {
    await page.goto(`${host.url}/client`);
    await page.waitForFunction(() => typeof window.ChoparClient === "function");
    const streamRequests = [];
    page.on("request", (r) => r.url().includes("/v1/inbox/stream") && streamRequests.push(r.headers()["last-event-id"] ?? null));
    await page.evaluate(async ([baseUrl, token]) => {
      window.seen = { notifications: [], opens: [], offline: 0 };
      window.client = new window.ChoparClient({ baseUrl, token });
      await new Promise((open) =>
        window.client.subscribe({
          open: (event) => (window.seen.opens.push(event), open()),
          offline: () => window.seen.offline++,
          notification: (n) => window.seen.notifications.push(n.id),
        }),
      );
    }, [chopar.url, tokens[USER_CLIENT]]);
    const before = await chopar.notify(USER_CLIENT, { title: "Before the restart" });
    await page.waitForFunction((id) => window.seen.notifications.includes(id), before.id);
    await chopar.stop();
    await page.waitForFunction(() => window.seen.offline > 0 && !window.client.connected);
    // Held off the stream until the notification exists, so it is certainly
    // created while the client is disconnected.
    await page.route("**/v1/inbox/stream**", (route) => route.abort());
    await chopar.start();
    const missed = await chopar.notify(USER_CLIENT, { title: "While it was down" });
    await page.unroute("**/v1/inbox/stream**");
    await page.waitForFunction((id) => window.seen.notifications.includes(id), missed.id, { timeout: 40000 });
    const seen = await page.evaluate(() => (window.client.close(), window.seen));
    assert.deepEqual(seen.notifications, [before.id, missed.id], "each once, in order");
    assert.deepEqual(seen.opens.at(-1), { reconnected: true });
    assert.equal(streamRequests[0], null, "the first open starts at the newest");
    assert.equal(streamRequests.at(-1), String(before.id), "a reopen sends the last id it saw");
  });

  it("badge counts unseen; opening the bell marks what it shows seen; count=\"unread\" keeps the old meaning", async () => {
    const ids = [];
    for (const title of ["Hisobot", "Yig‘ilish", "To‘lov"]) ids.push((await chopar.notify(USER_STATES, { title, body: "matn" })).id);
    await openBell(USER_STATES);
    await waitAttribute("data-unseen", 3);
    assert.equal(await bell().locator(".badge").textContent(), "3");
    assert.equal(await page.getByRole("button", { name: "Notifications, 3 new" }).count(), 1);
    await openPanel();
    await item(ids[0]).waitFor();
    await waitAttribute("data-unseen", 0);
    assert.equal(await bell().locator(".badge").isHidden(), true);
    assert.equal(await count(USER_STATES, "unseen"), 0);
    assert.equal(await count(USER_STATES, "unread"), 3, "seen is not read");
    for (const id of ids) assert.ok((await stored(id)).seen_at);

    await openBell(USER_STATES, { count: "unread" });
    await waitAttribute("data-unread", 3);
    assert.equal(await bell().locator(".badge").textContent(), "3");
    assert.equal(await page.getByRole("button", { name: "Notifications, 3 unread" }).count(), 1);
  });

  it("reads, unreads, archives (and shows the archive), unarchives and snoozes an item", async () => {
    await openBell(USER_STATES, { count: "unread" });
    await openPanel();
    await page.locator("chopar-bell li[data-id]").nth(2).waitFor();
    const [newest, middle, oldest] = await itemIds();

    await answered("read", () => item(newest).getByRole("button", { name: "Mark as read" }).click());
    await waitAttribute("data-unread", 2);
    await page.waitForFunction((id) => document.querySelector("chopar-bell").shadowRoot.querySelector(`li[data-id="${id}"]`)?.hasAttribute("data-unread") === false, newest);
    assert.ok((await stored(newest)).read_at);
    await answered("unread", () => item(newest).getByRole("button", { name: "Mark as unread" }).click());
    await waitAttribute("data-unread", 3);
    assert.equal((await stored(newest)).read_at, null);

    await answered("archive", () => item(middle).getByRole("button", { name: "Archive" }).click());
    await item(middle).waitFor({ state: "detached" });
    await waitAttribute("data-unread", 2);
    assert.ok((await stored(middle)).archived_at);
    await page.getByRole("button", { name: "Archived" }).click();
    await page.getByRole("heading", { name: "Archived" }).waitFor();
    await item(middle).waitFor();
    assert.deepEqual(await itemIds(), [middle]);
    await page.screenshot({ path: screenshotPath("bell-archived") });
    await answered("unarchive", () => item(middle).getByRole("button", { name: "Unarchive" }).click());
    await item(middle).waitFor({ state: "detached" });
    assert.equal((await stored(middle)).archived_at, null);
    await page.getByRole("button", { name: "Archived" }).click();
    await item(middle).waitFor();
    await waitAttribute("data-unread", 3);

    await item(oldest).getByRole("button", { name: "Snooze" }).click();
    const menu = page.getByRole("menu", { name: "Snooze" });
    await menu.waitFor();
    assert.deepEqual(await menu.getByRole("menuitem").allTextContents(), ["1 hour", "Tomorrow", "Next week"]);
    await page.screenshot({ path: screenshotPath("bell-snooze") });
    await answered("snooze", () => menu.getByRole("menuitem", { name: "Tomorrow" }).click());
    await item(oldest).waitFor({ state: "detached" });
    await waitAttribute("data-unread", 2);
    const until = new Date((await stored(oldest)).snoozed_until);
    const tomorrow = new Date();
    tomorrow.setDate(tomorrow.getDate() + 1);
    tomorrow.setHours(9, 0, 0, 0);
    assert.equal(until.getTime(), tomorrow.getTime(), "tomorrow at 09:00 of the browser's clock (UTC here)");
    // Still snoozed after a reload; back once unsnoozed.
    await openBell(USER_STATES, { count: "unread" });
    await openPanel();
    await item(newest).waitFor();
    assert.deepEqual(await itemIds(), [newest, middle]);
  });

  it("presses an event action once (shown pressed, the item read), follows a url action", async () => {
    const { id } = await chopar.notify(USER_ACTIONS, {
      title: "Invitation to «Vazifalar»",
      link: null,
      actions: [
        { label: "Accept", event: "invite.accept" },
        { label: "Open", url: "/invites/7" },
      ],
    });
    const other = await chopar.notify(USER_ACTIONS, { title: "Link action", actions: [{ label: "View task", url: "/tasks/7" }] });
    await openBell(USER_ACTIONS, { count: "unread" });
    await waitAttribute("data-unread", 2);
    await openPanel();
    await item(id).waitFor();
    const pressed = page.waitForResponse((r) => r.url().endsWith(`/v1/inbox/notifications/${id}/actions/0`));
    await item(id).getByRole("button", { name: "Accept" }).click();
    const answer = await (await pressed).json();
    assert.equal(answer.recorded, true);
    assert.equal(answer.event, "invite.accept");
    await item(id).getByRole("button", { name: "✓ Accept" }).waitFor();
    assert.equal(await item(id).getByRole("button", { name: "✓ Accept" }).getAttribute("aria-disabled"), "true");
    await waitAttribute("data-unread", 1);
    const notification = await stored(id);
    assert.ok(notification.read_at, "pressing reads the item");
    assert.equal(notification.actions[0].pressed_at, answer.pressed_at);
    // Pressing again sends nothing.
    let again = 0;
    page.on("request", (r) => r.url().includes("/actions/") && again++);
    await item(id).getByRole("button", { name: "✓ Accept" }).dispatchEvent("click");
    assert.equal(again, 0);
    await page.screenshot({ path: screenshotPath("bell-actions") });
    // After a reload the pressed state comes from the server.
    await openBell(USER_ACTIONS, { count: "unread" });
    await openPanel();
    await item(id).getByRole("button", { name: "✓ Accept" }).waitFor();

    await item(other.id).getByRole("link", { name: "View task" }).click();
    await page.waitForURL(`${host.url}/tasks/7`);
    assert.ok((await stored(other.id)).read_at, "following a link action reads the item");
  });

  it("shows tabs by category and tag, each with its count, and lists each tab's items", async () => {
    await chopar.notify(USER_TABS, { title: "Task A", category: "tasks" });
    await chopar.notify(USER_TABS, { title: "Task B", category: "tasks" });
    await chopar.notify(USER_TABS, { title: "Invoice 12", tags: ["billing", "urgent"] });
    await chopar.notify(USER_TABS, { title: "News", category: "marketing" });
    const tabs = JSON.stringify([{ label: "Tasks", category: "tasks" }, { label: "Billing", tag: "billing" }]);
    await openBell(USER_TABS, { count: "unread", tabs });
    await waitAttribute("data-unread", 4);
    await openPanel();
    const tabCounts = () =>
      page.locator("chopar-bell [role=tab]").evaluateAll((tabs) => tabs.map((tab) => [tab.firstChild.textContent, tab.querySelector(".tab-count").textContent]));
    await page.waitForFunction(() => document.querySelector("chopar-bell").shadowRoot.querySelectorAll(".tab-count:not(:empty)").length === 3);
    assert.deepEqual(await tabCounts(), [["All", "4"], ["Tasks", "2"], ["Billing", "1"]]);
    assert.equal(await page.getByRole("tab", { name: /^All/ }).getAttribute("aria-selected"), "true");

    await page.getByRole("tab", { name: /^Tasks/ }).click();
    await page.locator("chopar-bell li[data-id]").nth(1).waitFor();
    assert.deepEqual(await page.locator("chopar-bell .title").allTextContents(), ["Task B", "Task A"]);
    // Mark all as read in a tab reads that tab's only.
    await page.getByRole("button", { name: "Mark all as read" }).click();
    await page.waitForFunction(() => [...document.querySelector("chopar-bell").shadowRoot.querySelectorAll(".tab-count")].map((c) => c.textContent).join() === "2,,1");
    assert.equal(await count(USER_TABS, "unread"), 2);

    // Keyboard: arrows move between tabs and show their list.
    await page.getByRole("tab", { name: /^Tasks/ }).focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await page.getByRole("tab", { name: /^Billing/ }).getAttribute("aria-selected"), "true");
    await page.locator("chopar-bell li[data-id]").first().waitFor();
    assert.deepEqual(await page.locator("chopar-bell .title").allTextContents(), ["Invoice 12"]);
    await page.screenshot({ path: screenshotPath("bell-tabs") });
  });

  it("shows a change made elsewhere at once: the server key's archive and unarchive, another tab's read", async () => {
    const a = await chopar.notify(USER_LIVE, { title: "Live A" });
    const b = await chopar.notify(USER_LIVE, { title: "Live B" });
    await openBell(USER_LIVE, { count: "unread" });
    await openPanel();
    await item(b.id).waitFor();
    await item(a.id).waitFor();
    await waitAttribute("data-unread", 2);

    // The application archives with its server key.
    await chopar.call("POST", `/v1/users/${USER_LIVE}/notifications/archive`, { ids: [a.id] });
    await item(a.id).waitFor({ state: "detached", timeout: 5000 });
    await waitAttribute("data-unread", 1);
    // Another tab (a subscriber call) reads B.
    await inbox(USER_LIVE, "POST", "/v1/inbox/read", { ids: [b.id] });
    await page.waitForFunction((id) => !document.querySelector("chopar-bell").shadowRoot.querySelector(`li[data-id="${id}"]`)?.hasAttribute("data-unread"), b.id, { timeout: 5000 });
    await waitAttribute("data-unread", 0);
    // A, unarchived by the application, comes back (the bell had it loaded).
    await chopar.call("POST", `/v1/users/${USER_LIVE}/notifications/unarchive`, { ids: [a.id] });
    await item(a.id).waitFor({ timeout: 5000 });
    await waitAttribute("data-unread", 1);
    // A notification the bell never loaded, archived before the page opened
    // and unarchived now, is fetched and shown.
    const c = await chopar.notify(USER_LIVE, { title: "Live C" });
    await chopar.call("POST", `/v1/users/${USER_LIVE}/notifications/archive`, { ids: [c.id] });
    await openBell(USER_LIVE, { count: "unread" });
    await openPanel();
    await item(a.id).waitFor();
    assert.deepEqual(await itemIds(), [b.id, a.id]);
    await chopar.call("POST", `/v1/users/${USER_LIVE}/notifications/unarchive`, { ids: [c.id] });
    await item(c.id).waitFor({ timeout: 5000 });
    assert.deepEqual(await itemIds(), [c.id, b.id, a.id]);
  });

  it("brings a snoozed item back, unread, when its time comes, into an open bell", async () => {
    const { id } = await chopar.notify(USER_LIVE, { title: "Live D" });
    await openBell(USER_LIVE, { count: "unread" });
    await openPanel();
    await item(id).waitFor();
    await answered("read", () => item(id).getByRole("button", { name: "Mark as read" }).click());
    // Snoozed from elsewhere for a few seconds: it leaves, then comes back unread.
    const until = new Date(Date.now() + 3000).toISOString();
    await chopar.call("POST", `/v1/users/${USER_LIVE}/notifications/snooze`, { ids: [id], until });
    await item(id).waitFor({ state: "detached", timeout: 5000 });
    await item(id).waitFor({ timeout: 30000 });
    await page.waitForFunction((id) => document.querySelector("chopar-bell").shadowRoot.querySelector(`li[data-id="${id}"]`)?.hasAttribute("data-unread"), id, { timeout: 5000 });
    const back = await stored(id);
    assert.equal(back.snoozed_until, null);
    assert.equal(back.read_at, null);
  });

  it("lists the snoozed items, each with when it comes back, in three languages, and unsnoozes one from the keyboard", async () => {
    const a = await chopar.notify(USER_SNOOZED, { title: "Oylik hisobot", link: null });
    const b = await chopar.notify(USER_SNOOZED, { title: "Yig‘ilish", link: null });
    await openBell(USER_SNOOZED, { count: "unread" });
    await openPanel();
    await item(a.id).waitFor();
    await item(a.id).getByRole("button", { name: "Snooze" }).click();
    await answered("snooze", () => page.getByRole("menu", { name: "Snooze" }).getByRole("menuitem", { name: "1 hour" }).click());
    await item(a.id).waitFor({ state: "detached" });
    await waitAttribute("data-unread", 1);
    const until = (await stored(a.id)).snoozed_until;
    assert.ok(Date.parse(until) > Date.now() + 59 * 60000);

    // The view is a toggle at the panel's foot, reached and pressed like any button.
    const snoozedButton = page.getByRole("button", { name: "Snoozed", exact: true });
    assert.equal(await snoozedButton.getAttribute("aria-pressed"), "false");
    await snoozedButton.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Snoozed" }).waitFor();
    assert.equal(await snoozedButton.getAttribute("aria-pressed"), "true");
    await item(a.id).waitFor();
    assert.deepEqual(await itemIds(), [a.id]);
    assert.equal(await page.getByRole("button", { name: "Mark all as read" }).count(), 0);
    const back = item(a.id).locator("time.back");
    assert.equal(Date.parse(await back.getAttribute("datetime")), Date.parse(until), "the server's snoozed_until");
    assert.equal(await back.getAttribute("title"), new Date(until).toLocaleString("en"));
    assert.match(await back.textContent(), /^Comes back in (\d+ minutes|1 hour)$/);
    assert.equal(await item(a.id).getByRole("button", { name: "Snooze", exact: true }).count(), 0, "a snoozed item offers Unsnooze instead");
    assert.equal(await item(a.id).getByRole("button", { name: "Archive", exact: true }).count(), 0);
    await page.screenshot({ path: screenshotPath("bell-snoozed") });

    // Russian and Uzbek, as the rest of the bell.
    const setLocale = (locale) => bell().evaluate((element, locale) => element.setAttribute("locale", locale), locale);
    await setLocale("ru");
    await page.getByRole("heading", { name: "Отложенные" }).waitFor();
    assert.match(await back.textContent(), /^Вернётся через (\d+ минут[аы]?|1 час)$/);
    assert.equal(await item(a.id).getByRole("button", { name: "Вернуть сейчас" }).count(), 1);
    await setLocale("uz");
    await page.getByRole("heading", { name: "Keyinroqqa qoldirilganlar" }).waitFor();
    assert.match(await back.textContent(), /^Qaytadi: \d+ (daqiqa|soat)dan keyin$/);
    assert.equal(await item(a.id).getByRole("button", { name: "Hozir qaytarish" }).count(), 1);
    await setLocale("en");
    await page.getByRole("heading", { name: "Snoozed" }).waitFor();

    // From the item to its tools by Tab; Enter unsnoozes it.
    await item(a.id).locator(".item").focus();
    await page.keyboard.press("Tab");
    assert.deepEqual(await shadowFocus(), { label: "Mark as read", role: null, focus: "read" });
    await page.keyboard.press("Tab");
    assert.deepEqual(await shadowFocus(), { label: "Unsnooze", role: null, focus: "snooze" });
    await answered("unsnooze", () => page.keyboard.press("Enter"));
    await item(a.id).waitFor({ state: "detached" });
    await bell().getByText("No snoozed notifications").waitFor();
    await waitAttribute("data-unread", 2);
    const stateNow = await stored(a.id);
    assert.equal(stateNow.snoozed_until, null);
    assert.equal(stateNow.read_at, null, "still unread");

    // Back in the main list.
    await snoozedButton.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Notifications" }).waitFor();
    await item(a.id).waitFor();
    assert.deepEqual(await itemIds(), [b.id, a.id]);
    assert.equal(await count(USER_SNOOZED, "unread"), 2);
  });

  it("shows in an open Snoozed view an item snoozed in another tab, and moves it back to the main list when its snooze ends", async () => {
    const { id } = await chopar.notify(USER_SNOOZED, { title: "Eslatma", link: null });
    await openBell(USER_SNOOZED, { count: "unread" });
    await openPanel();
    await item(id).waitFor();
    await answered("read", () => item(id).getByRole("button", { name: "Mark as read" }).click());
    await page.getByRole("button", { name: "Snoozed", exact: true }).click();
    await page.getByRole("heading", { name: "Snoozed" }).waitFor();
    await bell().getByText("No snoozed notifications").waitFor();

    // Another tab snoozes it for a few seconds: it appears here with its time…
    const until = new Date(Date.now() + 5000).toISOString();
    await inbox(USER_SNOOZED, "POST", "/v1/inbox/snooze", { ids: [id], until });
    await item(id).waitFor({ timeout: 5000 });
    assert.equal(Date.parse(await item(id).locator("time.back").getAttribute("datetime")), Date.parse((await stored(id)).snoozed_until));
    // …and leaves when the snooze ends, back in the main list, unread.
    await item(id).waitFor({ state: "detached", timeout: 30000 });
    const returned = await stored(id);
    assert.equal(returned.snoozed_until, null);
    assert.equal(returned.read_at, null);
    await page.getByRole("button", { name: "Snoozed", exact: true }).click();
    await item(id).waitFor();
    await page.waitForFunction((id) => document.querySelector("chopar-bell").shadowRoot.querySelector(`li[data-id="${id}"]`)?.hasAttribute("data-unread"), id, { timeout: 5000 });
  });

  it("keeps a tenant's bell to the tenant's notifications: counts, list, and marking all of them read", async () => {
    const ours = [];
    for (const title of ["Acme: invoice", "Acme: task"]) ours.push((await chopar.notify(USER_TENANT, { title, tenant: "acme" })).id);
    const global = await chopar.notify(USER_TENANT, { title: "Not Acme's" });
    await openBell(USER_TENANT, { tenant: "acme" });
    await waitAttribute("data-unseen", 2);
    await openPanel();
    await page.getByRole("heading", { name: "Acme Ltd" }).waitFor();
    await item(ours[0]).waitFor();
    assert.deepEqual(await itemIds(), [ours[1], ours[0]]);
    await waitAttribute("data-unseen", 0);
    assert.equal(await count(USER_TENANT, "unseen"), 1, "the other notification was not on screen");
    await answered("read", () => page.getByRole("button", { name: "Mark all as read" }).click());
    assert.equal(await count(USER_TENANT, "unread"), 1);
    assert.equal((await stored(global.id)).read_at, null, "all of the tenant's, not all of the user's");
  });

  it("works from the keyboard: tools and the snooze menu by Tab, arrows, Enter and Escape", async () => {
    const { id } = await chopar.notify(USER_KEYS, { title: "Klaviatura", link: null });
    await openBell(USER_KEYS, { count: "unread" });
    await waitAttribute("data-unread", 1);
    await bell().locator(".bell").focus();
    await page.keyboard.press("Enter");
    await item(id).waitFor();
    await page.keyboard.press("Tab"); // mark all
    await page.keyboard.press("Tab"); // the item
    assert.equal((await shadowFocus()).focus, "item");
    await page.keyboard.press("Tab");
    assert.deepEqual(await shadowFocus(), { label: "Mark as read", role: null, focus: "read" });
    await page.keyboard.press("Tab");
    assert.equal((await shadowFocus()).label, "Archive");
    await page.keyboard.press("Tab");
    assert.equal((await shadowFocus()).label, "Snooze");
    await page.keyboard.press("Enter");
    assert.deepEqual(await shadowFocus(), { label: "1 hour", role: "menuitem", focus: "snooze-hour" });
    await page.keyboard.press("ArrowDown");
    assert.equal((await shadowFocus()).label, "Tomorrow");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    assert.equal((await shadowFocus()).label, "Next week", "arrows wrap around");
    // Escape closes the menu, not the panel, and gives the focus back.
    await page.keyboard.press("Escape");
    assert.equal(await page.getByRole("menu").count(), 0);
    assert.equal(await page.getByRole("dialog").isVisible(), true);
    assert.equal((await shadowFocus()).label, "Snooze");
    assert.equal(await bell().locator("[data-tool=snooze]").getAttribute("aria-expanded"), "false");
    // Space on the read tool reads it; the focus stays on the item's tool.
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Shift+Tab");
    assert.equal((await shadowFocus()).label, "Mark as read");
    await answered("read", () => page.keyboard.press(" "));
    await waitAttribute("data-unread", 0);
    assert.equal((await shadowFocus()).label, "Mark as unread");
    // Snooze by keyboard: the item leaves and the focus stays in the panel.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await answered("snooze", () => page.keyboard.press("Enter"));
    await item(id).waitFor({ state: "detached" });
    assert.ok((await stored(id)).snoozed_until);
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), "CHOPAR-BELL");
    await page.keyboard.press("Escape");
    assert.equal(await page.getByRole("dialog").isHidden(), true);
  });

  it("speaks Russian with locale=ru and takes its screenshots", async () => {
    const { id } = await chopar.notify(USER_KEYS, {
      title: "Новое приглашение",
      body: "Команда «Отчёты»",
      link: null,
      category: "tasks",
      actions: [{ label: "Принять", event: "invite.accept" }],
    });
    await openBell(USER_KEYS, { locale: "ru", tabs: JSON.stringify([{ label: "Задачи", category: "tasks" }]) });
    await waitAttribute("data-unseen", 1);
    assert.equal(await page.getByRole("button", { name: "Уведомления, 1 новое" }).count(), 1);
    await page.screenshot({ path: screenshotPath("bell-ru-closed") });
    await openPanel();
    await item(id).waitFor();
    await page.getByRole("tab", { name: /^Все/ }).waitFor();
    assert.equal(await item(id).getByRole("button", { name: "Отметить прочитанным" }).count(), 1);
    assert.equal(await item(id).getByRole("button", { name: "В архив" }).count(), 1);
    await item(id).getByRole("button", { name: "Отложить" }).click();
    assert.deepEqual(await page.getByRole("menuitem").allTextContents(), ["На 1 час", "До завтра", "До следующей недели"]);
    await page.keyboard.press("Escape");
    assert.equal(await page.getByRole("button", { name: "Архив", exact: true }).count(), 1);
    await page.screenshot({ path: screenshotPath("bell-ru-open") });
  });
});
