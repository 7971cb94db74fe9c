// The <chopar-bell> widget in a real browser: a host page on another origin
// embeds it with a subscriber token, and chopar serves it and the inbox.
// Its badge counts unread notifications here (count="unread"); the default,
// unseen, and the inbox's other states are in inbox.test.mjs.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { chromiumPath, launch, screenshotPath } from "./lib/browser.mjs";
import { Chopar, skipReason } from "./lib/chopar.mjs";
import { startHostPage } from "./lib/host.mjs";

const skip = skipReason() || (chromiumPath() ? false : "chromium is not installed");
const USER_A = 101;
const USER_B = 202;

describe("chopar-bell", { skip }, () => {
  let chopar, host, browser, page, tokenA, tokenB;

  const bell = () => page.locator("chopar-bell");
  const button = () => page.getByRole("button", { name: /^Notifications,/ });
  const unread = async () => Number(await bell().getAttribute("data-unread"));
  const waitUnread = (n) => page.waitForFunction((n) => document.querySelector("chopar-bell")?.getAttribute("data-unread") === String(n), n, { timeout: 5000 });
  const itemIds = () => page.locator("chopar-bell li[data-id]").evaluateAll((items) => items.map((li) => Number(li.dataset.id)));

  // The user's own preferences as the API stores them (the subscriber token's endpoint).
  async function storedPreferences(token) {
    const response = await fetch(`${chopar.url}/v1/inbox/preferences`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200);
    return response.json();
  }

  // Clicks a settings switch and resolves to the preferences the server stored.
  async function toggle(name) {
    const saved = page.evaluate(
      () => new Promise((resolve) => document.querySelector("chopar-bell").addEventListener("chopar-bell-preferences", (event) => resolve(event.detail), { once: true })),
    );
    await page.getByRole("switch", { name }).click();
    return saved;
  }

  async function openHost(token, { locale = "en", path = "/app" } = {}) {
    await page.goto(`${host.url}${path}?token=${encodeURIComponent(token)}&locale=${locale}`);
    await page.waitForFunction(() => document.querySelector("chopar-bell")?.hasAttribute("data-unread"));
  }

  before(async () => {
    chopar = new Chopar({ name: "bell" });
    await chopar.start();
    for (const id of [USER_A, USER_B]) await chopar.call("PUT", `/v1/users/${id}`, { timezone: "Asia/Tashkent", locale: "uz" });
    tokenA = await chopar.token(USER_A);
    tokenB = await chopar.token(USER_B);
    // The host page's "session": the token and locale of the last page
    // opened with them, so links the bell follows keep the signed-in user.
    let session = { token: "", locale: "en" };
    host = await startHostPage((url) => {
      if (url.searchParams.has("token")) session = { token: url.searchParams.get("token"), locale: url.searchParams.get("locale") || "en" };
      const { token, locale } = session;
      const attr = (s) => s.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
      return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vazifalar</title>
<script type="module" src="${chopar.url}/widget/chopar-bell.js"></script>
<style>body{margin:0;font:15px system-ui,sans-serif;background:#f3f4f6;color:#111827}
header{display:flex;align-items:center;justify-content:space-between;padding:10px 24px;background:#fff;border-bottom:1px solid #e5e7eb}
main{padding:24px;max-width:640px} .task{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;margin:8px 0}</style></head>
<body><header><a href="/app">Vazifalar</a><chopar-bell server="${attr(chopar.url)}" token="${attr(token)}" locale="${attr(locale)}" categories="tasks marketing" count="unread"></chopar-bell></header>
<main><h1>${attr(url.pathname)}</h1><div class="task">Non olish — 18:00</div><div class="task">Hisobot yozish — juma</div></main></body></html>`;
    });
    browser = await launch({ viewport: { width: 900, height: 620 } });
    page = await browser.context.newPage();
  });

  after(async () => {
    await browser?.close();
    await host?.close();
    await chopar?.dispose();
  });

  it("shows the right unread count, and only the token's own user's items", async () => {
    await chopar.notify(USER_A, { title: "Muddat yaqin: hisobot", body: "Juma 18:00 gacha" });
    await chopar.notify(USER_A, { title: "Yangi izoh", body: "Dilnoza: «Tayyor»", link: "/tasks/2" });
    await chopar.notify(USER_A, { title: "Vazifa berildi", body: "Non olish", link: null });
    await chopar.notify(USER_B, { title: "B only: secret", body: "never for A" });
    await openHost(tokenA);
    await waitUnread(3);
    assert.equal(await page.locator("chopar-bell").getAttribute("data-unread"), "3");
    assert.equal(await page.locator("chopar-bell").locator(".badge").textContent(), "3");

    await button().click();
    await page.locator("chopar-bell li[data-id]").first().waitFor();
    const titles = await page.locator("chopar-bell .title").allTextContents();
    assert.deepEqual(titles, ["Vazifa berildi", "Yangi izoh", "Muddat yaqin: hisobot"]);
    assert.ok(!titles.some((t) => t.includes("B only")));

    // B's token sees B's one item, never A's.
    await openHost(tokenB);
    await waitUnread(1);
    await button().click();
    await page.locator("chopar-bell li[data-id]").first().waitFor();
    assert.deepEqual(await page.locator("chopar-bell .title").allTextContents(), ["B only: secret"]);
    // A token whose user id was changed to A's is refused outright.
    const forged = tokenB.replace(/^v2\.[0-9]+\./, `v2.${USER_A}.`);
    assert.notEqual(forged, tokenB);
    const status = await page.evaluate(async ([server, token]) => (await fetch(`${server}/v1/inbox/notifications`, { headers: { Authorization: `Bearer ${token}` } })).status, [chopar.url, forged]);
    assert.equal(status, 401);
  });

  it("shows a notification created through the API within 2 s, without reload", async () => {
    await openHost(tokenA);
    await waitUnread(3);
    await button().click();
    await page.locator("chopar-bell li[data-id]").first().waitFor();
    const started = Date.now();
    const { id } = await chopar.notify(USER_A, { title: "Jonli: yangi topshiriq", body: "Hozir yaratildi", link: "/tasks/9" });
    await page.locator(`chopar-bell li[data-id="${id}"]`).waitFor({ timeout: 2000 });
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 2000, `appeared after ${elapsed} ms`);
    await waitUnread(4);
    assert.equal((await itemIds())[0], id, "the new item is at the top");
  });

  it("marks an item read on click, follows its internal link on the host page, and the badge drops", async () => {
    const ids = await itemIds();
    const newest = ids[0];
    await page.locator(`chopar-bell li[data-id="${newest}"] .item`).click();
    await page.waitForURL(`${host.url}/tasks/9`);
    await waitUnread(3);
    const { count } = await chopar.call("GET", `/v1/users/${USER_A}/notifications/unread-count`);
    assert.equal(count, 3);
    const item = await chopar.call("GET", `/v1/notifications/${newest}`);
    assert.ok(item.read_at, "the clicked notification is read");
  });

  it("zeroes the badge with 'mark all as read'", async () => {
    await openHost(tokenA);
    await waitUnread(3);
    await button().click();
    // The badge drops at once and the request follows it: wait for its answer
    // before asking the server.
    const marked = page.waitForResponse((r) => r.url().endsWith("/v1/inbox/read"));
    await page.getByRole("button", { name: "Mark all as read" }).click();
    assert.equal((await marked).ok(), true);
    await waitUnread(0);
    assert.equal(await page.locator("chopar-bell .badge").isHidden(), true);
    assert.equal((await chopar.call("GET", `/v1/users/${USER_A}/notifications/unread-count`)).count, 0);
    // The server agrees after a reload too.
    await openHost(tokenA);
    await waitUnread(0);
  });

  it("reconnects after the server restarts and shows what was created meanwhile exactly once", async () => {
    await openHost(tokenA);
    await button().click();
    await page.locator("chopar-bell li[data-id]").first().waitFor();
    await chopar.stop();
    await page.waitForFunction(() => document.querySelector("chopar-bell").hasAttribute("data-offline"));
    // Hold the bell off the stream until the notification exists, so it is
    // certainly created while the bell is disconnected.
    await page.route("**/v1/inbox/stream**", (route) => route.abort());
    await chopar.start();
    const { id } = await chopar.notify(USER_A, { title: "Qayta ulanganda", body: "Server o‘chganda yaratildi" });
    assert.equal(await bell().getAttribute("data-offline"), "", "still disconnected when it was created");
    await page.unroute("**/v1/inbox/stream**");
    await page.locator(`chopar-bell li[data-id="${id}"]`).waitFor({ timeout: 40000 });
    await page.waitForFunction(() => !document.querySelector("chopar-bell").hasAttribute("data-offline"));
    await waitUnread(1);
    // A later live event arrives on the new stream; the missed one stays single.
    const later = await chopar.notify(USER_A, { title: "Keyingisi", body: "jonli" });
    await page.locator(`chopar-bell li[data-id="${later.id}"]`).waitFor({ timeout: 2000 });
    const ids = await itemIds();
    assert.equal(ids.filter((x) => x === id).length, 1);
    assert.equal(new Set(ids).size, ids.length, "no item is shown twice");
    await waitUnread(2);
  });

  it("is keyboard and screen-reader friendly: named button, aria-expanded, Escape closes", async () => {
    await openHost(tokenA);
    await waitUnread(2);
    const named = page.getByRole("button", { name: "Notifications, 2 unread" });
    assert.equal(await named.count(), 1, "the button's accessible name says what it is and the count");
    assert.equal(await named.getAttribute("aria-expanded"), "false");
    // Reach it with the keyboard: Tab from the page's first link.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), "CHOPAR-BELL");
    assert.equal(await page.evaluate(() => document.querySelector("chopar-bell").shadowRoot.activeElement?.getAttribute("part")), "button");
    await page.keyboard.press("Enter");
    assert.equal(await named.getAttribute("aria-expanded"), "true");
    const dialog = page.getByRole("dialog", { name: "Notifications" });
    await dialog.waitFor();
    // The list loads as the panel opens; Tab is to reach its first item.
    await page.locator("chopar-bell li[data-id]").first().waitFor();
    assert.equal(await page.evaluate(() => document.querySelector("chopar-bell").shadowRoot.activeElement?.getAttribute("role")), "dialog");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.querySelector("chopar-bell").shadowRoot.activeElement?.textContent), "Mark all as read");
    await page.keyboard.press("Tab");
    assert.match(await page.evaluate(() => document.querySelector("chopar-bell").shadowRoot.activeElement?.className), /item/);
    await page.keyboard.press("Escape");
    assert.equal(await dialog.isHidden(), true);
    assert.equal(await named.getAttribute("aria-expanded"), "false");
    assert.equal(await page.evaluate(() => document.querySelector("chopar-bell").shadowRoot.activeElement?.getAttribute("part")), "button", "focus returns to the button");
  });

  it("speaks Uzbek with locale=uz, keeps its styles in the shadow root, and takes screenshots", async () => {
    await openHost(tokenA, { locale: "uz" });
    await waitUnread(2);
    assert.equal(await page.getByRole("button", { name: "Bildirishnomalar, 2 ta o‘qilmagan" }).count(), 1);
    // No global CSS leaks: the page's own elements keep their styles.
    assert.equal(await page.evaluate(() => document.styleSheets.length), 1);
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector("h1")).fontWeight), "700");
    await page.screenshot({ path: screenshotPath("bell-closed") });
    await page.locator("chopar-bell .bell").click();
    await page.getByRole("button", { name: "Hammasini o‘qildi deb belgilash" }).waitFor();
    await page.locator("chopar-bell li[data-id]").first().waitFor();
    await page.screenshot({ path: screenshotPath("bell-open") });
  });

  it("loads older notifications as the panel scrolls (keyset pages of 20)", async () => {
    for (let i = 1; i <= 25; i++) await chopar.notify(USER_B, { title: `Eski ${i}`, body: "sahifa", link: null });
    await openHost(tokenB);
    await waitUnread(26);
    await page.locator("chopar-bell .bell").click();
    await page.locator("chopar-bell li[data-id]").nth(19).waitFor();
    assert.equal(await page.locator("chopar-bell li[data-id]").count(), 20);
    await page.locator("chopar-bell .scroll").evaluate((scroll) => scroll.scrollTo(0, scroll.scrollHeight));
    await page.locator("chopar-bell li[data-id]").nth(25).waitFor();
    const titles = await page.locator("chopar-bell .title").allTextContents();
    assert.equal(titles.length, 26);
    assert.equal(titles[0], "Eski 25");
    assert.equal(titles[25], "B only: secret");
  });

  it("sets the user's own preferences by category and channel in its settings view", async () => {
    const put = await fetch(`${chopar.url}/v1/inbox/preferences`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${tokenA}`, "Content-Type": "application/json" },
      body: JSON.stringify({ categories: { tasks: { email: false } }, types: { "task.due": { telegram: false } } }),
    });
    assert.equal(put.status, 200);
    await openHost(tokenA);
    await button().click();
    await page.getByRole("button", { name: "Notification settings" }).click();
    const switchOf = (name) => page.getByRole("switch", { name });
    await switchOf("tasks: Email").waitFor();
    // What is stored, and what follows from it by the server's order.
    assert.equal(await switchOf("tasks: Email").isChecked(), false);
    assert.equal(await switchOf("tasks: Telegram").isChecked(), true);
    assert.equal(await switchOf("marketing: Email").isChecked(), true);
    assert.equal(await switchOf("All notifications: SMS").isChecked(), false, "SMS is off by default");
    assert.equal(await switchOf("marketing: SMS").isChecked(), false);

    const detail = await toggle("marketing: Email");
    let stored = await storedPreferences(tokenA);
    assert.deepEqual(stored, detail);
    assert.deepEqual(stored.categories, { tasks: { email: false }, marketing: { email: false } });
    assert.deepEqual(stored.types, { "task.due": { telegram: false } }, "types are left alone");

    await toggle("tasks: Email");
    assert.deepEqual((await storedPreferences(tokenA)).categories, { tasks: { email: true }, marketing: { email: false } });

    await toggle("All notifications: SMS");
    stored = await storedPreferences(tokenA);
    assert.equal(stored.sms, true);
    assert.equal(await switchOf("marketing: SMS").isChecked(), true, "a category without its own SMS setting follows the channel");
    await page.screenshot({ path: screenshotPath("bell-preferences") });

    // After a reload the view shows what the server has.
    await openHost(tokenA);
    await button().click();
    await page.getByRole("button", { name: "Notification settings" }).click();
    await switchOf("marketing: Email").waitFor();
    assert.equal(await switchOf("marketing: Email").isChecked(), false);
    assert.equal(await switchOf("tasks: Email").isChecked(), true);
    await page.getByRole("button", { name: "Back to notifications" }).click();
    await page.locator("chopar-bell li[data-id]").first().waitFor();
  });

  it("builds its switches from the server's channels (GET /v1/channels), a channel it has no word for included", async () => {
    const served = await (await fetch(`${chopar.url}/v1/channels`)).json();
    assert.deepEqual(served.channels.map((c) => c.name), ["email", "telegram", "push", "sms", "mobile", "discord", "msteams", "slack", "whatsapp"]);
    // A server with one more channel: the bell needs no change to show it.
    const pager = { name: "pager", address: "pager_id", default: true, template_fields: ["text"], settings: "channels.pager" };
    await page.route("**/v1/channels", (route) =>
      route.fulfill({ status: 200, contentType: "application/json", headers: { "Access-Control-Allow-Origin": "*" }, body: JSON.stringify({ channels: [...served.channels, pager] }) }),
    );
    try {
      await openHost(tokenB);
      await button().click();
      await page.getByRole("button", { name: "Notification settings" }).click();
      const switchOf = (name) => page.getByRole("switch", { name });
      await switchOf("All notifications: pager").waitFor();
      assert.equal(await switchOf("All notifications: pager").isChecked(), true, "on by its default");
      assert.equal(await switchOf("tasks: pager").isChecked(), true);
      assert.equal(await switchOf("All notifications: SMS").isChecked(), false);
      assert.equal(await switchOf("All notifications: WhatsApp").isChecked(), false, "off until the user opts in");
      const columns = await page.locator("chopar-bell thead th").allTextContents();
      assert.deepEqual(columns, ["Email", "Telegram", "Push", "SMS", "Mobile", "Discord", "Microsoft Teams", "Slack", "WhatsApp", "pager"]);
    } finally {
      await page.unroute("**/v1/channels");
    }
  });
});
