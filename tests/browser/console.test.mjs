// The admin console in a real browser: sign in, see a failed delivery with
// its error, retry it and watch it become sent through the sink, read the
// email in the sink inbox, and see the overview chart with data; then
// console accounts: sign-in with an email and password, the throttle, the
// CSRF token, what a viewer may do, and revoked sessions; a template's
// versions, their diff, restore and publish.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { chromiumPath, launch, screenshotPath } from "./lib/browser.mjs";
import { API_KEY, Chopar, freePort, skipReason, until } from "./lib/chopar.mjs";

const skip = skipReason() || (chromiumPath() ? false : "chromium is not installed");
const AZIZ = 7;
const GULNORA = 8;
// A valid browser push key pair (P-256 point and auth secret).
const P256DH = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
const PUSH_AUTH = "BTBZMqHH6r4Tts7J_aSIgg";

describe("console", { skip }, () => {
  let chopar, browser, page, failedDelivery, walkthrough;

  before(async () => {
    chopar = new Chopar({ name: "console" });
    // First life: email goes through SMTP to a port where nothing listens,
    // one attempt only, so Aziz's email fails with the provider's error.
    const deadPort = await freePort();
    await chopar.start({
      CHOPAR_CHANNELS_EMAIL_PROVIDER: "smtp",
      CHOPAR_CHANNELS_EMAIL_SMTP_URL: `smtp://127.0.0.1:${deadPort}`,
      CHOPAR_DELIVERY_MAX_ATTEMPTS: "1",
    });
    await chopar.call("PUT", `/v1/users/${AZIZ}`, { email: "aziz@example.uz", timezone: "Asia/Tashkent", locale: "uz", preferences: { telegram: false, push: false } });
    const failed = await chopar.notify(AZIZ, { title: "Parolni tiklash", body: "Kod: 482913", link: "/account/reset", critical: true, channels: ["email"] });
    failedDelivery = await until("the failed delivery", async () => {
      const { items } = await chopar.call("GET", `/v1/deliveries?status=failed&user_id=${AZIZ}`);
      return items.find((d) => d.notification_id === failed.id);
    });
    assert.ok(failedDelivery.last_error, "the failure keeps its error");

    // Second life: the operator removed the broken SMTP settings; every
    // channel is the sink now.
    await chopar.stop();
    await chopar.start({});
    await chopar.call("PUT", `/v1/users/${GULNORA}`, { email: "gulnora@example.uz", phone: "+998901234567", timezone: "Asia/Tashkent", locale: "uz", preferences: { sms: true }, quiet_hours: { start: "23:00", end: "07:00" } });
    await chopar.call("PUT", `/v1/users/${GULNORA}/telegram`, { chat_id: 900000001 });
    await chopar.call("POST", `/v1/users/${GULNORA}/push-subscriptions`, { endpoint: "https://push.example.net/send/gulnora-1", keys: { p256dh: P256DH, auth: PUSH_AUTH } });
    walkthrough = await chopar.notify(GULNORA, { title: "Muddat yaqin: hisobot", body: "Haftalik hisobot juma 18:00 gacha", link: "/tasks/42", critical: true });
    for (let i = 0; i < 5; i++) await chopar.notify(AZIZ, { title: `Eslatma ${i + 1}`, body: "Dori vaqti", channels: ["email"] });
    await until("the walk-through's deliveries", async () => {
      const n = await chopar.call("GET", `/v1/notifications/${walkthrough.id}`);
      return n.deliveries.length === 4 && n.deliveries.every((d) => d.status === "sent");
    });
    await chopar.call("PUT", "/v1/schedules/pill-17", { user_id: GULNORA, cron: "5 18 * * *", notification: { type: "pill.reminder", title: "Sitramon", body: "18:00 dori vaqti", link: "/pills/17", channels: ["push", "telegram"] } });
    await chopar.call("PUT", "/v1/schedules/weekly-review", { user_id: AZIZ, cron: "0 9 * * 1", timezone: "Europe/Berlin", notification: { type: "task.review", title: "Haftalik ko‘rib chiqish" } });

    browser = await launch({ viewport: { width: 1280, height: 860 } });
    page = await browser.context.newPage();
  });

  after(async () => {
    await browser?.close();
    await chopar?.dispose();
  });

  it("refuses a wrong API key and signs in with the right one", async () => {
    await page.goto(`${chopar.url}/`);
    await page.getByLabel("API key").fill("not-the-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "not valid" }).waitFor();
    await page.screenshot({ path: screenshotPath("console-sign-in") });
    await page.getByLabel("API key").fill(API_KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    // A fresh install has no account: the key opened a session, kept in an
    // HttpOnly cookie that no script reads; the key itself is kept nowhere.
    assert.equal(await page.evaluate(() => sessionStorage.length + localStorage.length), 0);
    assert.doesNotMatch(await page.evaluate(() => document.cookie), /chopar_session/);
    const cookie = (await browser.context.cookies()).find((c) => c.name === "chopar_session");
    assert.ok(cookie, "the session cookie is set");
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, "Strict");
    assert.equal(await page.locator("#who").textContent(), "API key (admin)");
  });

  it("renders the overview chart with data", async () => {
    await page.goto(`${chopar.url}/#/overview`);
    await page.locator("svg.chart rect.bar").first().waitFor();
    const bars = await page.locator("svg.chart rect.bar").count();
    assert.ok(bars >= 2, `bars: ${bars}`);
    const total = Number(await page.locator("figure.chart-figure").getAttribute("data-total"));
    assert.ok(total >= 10, `deliveries in the chart: ${total}`);
    assert.match(await page.locator("svg.chart").getAttribute("aria-label"), /failed/);
    assert.equal(await page.locator('[data-stat="outbox"] .stat-value').textContent(), "0", "GET /v1/outbox/stats answers: nothing pending");
    assert.match(await page.locator('[data-stat="failure"] .stat-value').textContent(), /%/);
    await page.screenshot({ path: screenshotPath("console-overview"), fullPage: true });
  });

  it("shows a failed delivery with its error, retries it and watches it become sent", async () => {
    await page.goto(`${chopar.url}/#/deliveries`);
    await page.getByLabel("Status").selectOption("failed");
    await page.getByRole("button", { name: "Filter" }).click();
    const row = page.locator(`tr[data-delivery="${failedDelivery.id}"]`);
    await row.waitFor();
    assert.equal(await row.getAttribute("data-status"), "failed");
    assert.equal((await row.locator(".error-text").textContent()).trim(), failedDelivery.last_error);
    const columns = await page.locator("#main thead th").allTextContents();
    assert.ok(columns.includes("provider status"), `the provider's own status has a column: ${columns}`);
    assert.equal((await row.locator(".provider").textContent()).trim(), "smtp", "the provider that answered");
    await page.screenshot({ path: screenshotPath("console-deliveries-failed"), fullPage: true });

    await page.getByLabel("Status").selectOption("");
    await page.getByRole("button", { name: "Filter" }).click();
    await row.getByRole("button", { name: `Retry delivery ${failedDelivery.id}` }).click();
    await page.getByRole("status").filter({ hasText: "queued again" }).waitFor();
    await page.locator(`tr[data-delivery="${failedDelivery.id}"][data-status="sent"]`).waitFor({ timeout: 15000 });
    const after = await chopar.call("GET", `/v1/deliveries?user_id=${AZIZ}&channel=email`);
    const retried = after.items.find((d) => d.id === failedDelivery.id);
    assert.equal(retried.status, "sent");
    assert.equal(retried.attempts, 1, "attempts were reset, then one attempt sent it");
    assert.equal(retried.provider, null, "the sink sent it: no provider has it");
    // A sent delivery is not retried again.
    const again = await chopar.api("POST", `/v1/deliveries/${failedDelivery.id}/retry`);
    assert.equal(again.status, 409);
    assert.equal(await page.locator(`tr[data-delivery="${failedDelivery.id}"] button`).count(), 0);
  });

  it("shows a notification's in-app state and each channel's status", async () => {
    await page.goto(`${chopar.url}/#/notifications/${walkthrough.id}`);
    await page.getByRole("heading", { name: `Notification #${walkthrough.id}` }).waitFor();
    assert.equal(await page.locator("[data-in-app]").getAttribute("data-in-app"), "unread");
    for (const channel of ["email", "telegram", "push", "sms"]) {
      assert.equal(await page.locator(`tr[data-channel="${channel}"]`).getAttribute("data-status"), "sent");
    }
    await page.screenshot({ path: screenshotPath("console-notification"), fullPage: true });
  });

  it("draws a notification's workflow steps as a timeline, and nothing for one without a workflow", async () => {
    await page.goto(`${chopar.url}/#/notifications/${walkthrough.id}`);
    await page.getByRole("heading", { name: "Channels" }).waitFor();
    assert.equal((await chopar.call("GET", `/v1/notifications/${walkthrough.id}`)).workflow ?? null, null);
    assert.equal(await page.getByRole("heading", { name: "Workflow" }).count(), 0, "no workflow, no card");

    // A run half-way: the server's own answer with a workflow in it (the
    // engine's runs are tested in console_workflow.test.mjs).
    const shown = await chopar.call("GET", `/v1/notifications/${walkthrough.id}`);
    const workflow = {
      status: "active",
      step: 3,
      due_at: "2026-11-02T09:00:00Z",
      steps: [
        { index: 0, type: "channel", outcome: "sent", channel: "push", delivery_id: 41, at: "2026-11-01T18:00:00Z", until: null, detail: null },
        { index: 1, name: "wait_a_bit", type: "delay", outcome: "delayed", channel: null, delivery_id: null, at: "2026-11-01T18:00:00Z", until: "2026-11-01T18:10:00Z", detail: "600 seconds" },
        { index: 2, type: "channel", outcome: "condition_false", channel: null, delivery_id: null, at: "2026-11-01T18:10:00Z", until: null, detail: "notification.seen == false <b>&</b>" },
      ],
    };
    const tab = await browser.context.newPage();
    await tab.route(`**/v1/notifications/${walkthrough.id}`, (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ ...shown, workflow }) }),
    );
    try {
      await tab.goto(`${chopar.url}/#/notifications/${walkthrough.id}`);
      const card = tab.locator('section[data-workflow="active"]');
      await card.getByRole("heading", { name: "Workflow" }).waitFor();
      const steps = card.getByRole("list", { name: "Workflow steps" }).locator("li");
      assert.equal(await steps.count(), 4, "three steps done and the next");
      assert.deepEqual(await steps.evaluateAll((items) => items.map((li) => [li.dataset.step, li.dataset.outcome ?? "next"])), [
        ["0", "sent"], ["1", "delayed"], ["2", "condition_false"], ["3", "next"],
      ]);
      const first = steps.nth(0);
      assert.match(await first.textContent(), /Step 1\s*channel\s*sent\s*push\s*delivery #41/);
      assert.equal(await first.locator(".channel-push").count(), 1);
      assert.equal(await steps.nth(1).locator(".timeline-name").textContent(), "wait_a_bit");
      assert.match(await steps.nth(1).locator(".timeline-times").textContent(), /2026-11-01 18:00:00 UTC · until 2026-11-01 18:10:00 UTC/);
      assert.equal(await steps.nth(1).locator(".timeline-detail").textContent(), "600 seconds");
      assert.equal(await steps.nth(2).locator("[data-outcome]").textContent(), "condition false");
      assert.equal(await steps.nth(2).locator(".timeline-detail").textContent(), "notification.seen == false <b>&</b>", "a detail is text, never markup");
      assert.match(await steps.nth(3).textContent(), /Step 4\s*next\s*due 2026-11-02 09:00:00 UTC/);
      assert.match(await card.locator(".section-head").textContent(), /active\s*next step due 2026-11-02 09:00:00 UTC/);
      await tab.screenshot({ path: screenshotPath("console-notification-workflow"), fullPage: true });
    } finally {
      await tab.close();
    }
  });

  it("shows in the sink inbox the email, Telegram, push and SMS the walk-through sent", async () => {
    await page.goto(`${chopar.url}/#/sink`);
    await page.getByRole("heading", { name: "Sink inbox" }).waitFor();
    const email = page.locator(`article[data-channel="email"]`).filter({ hasText: "gulnora@example.uz" });
    await email.waitFor();
    assert.equal(await email.locator(".subject").textContent(), "Muddat yaqin: hisobot");
    const frame = page.frameLocator(`article[data-channel="email"]:has-text("gulnora@example.uz") iframe.email-frame`);
    await frame.locator("body").getByText("Haftalik hisobot juma 18:00 gacha").waitFor();
    assert.equal(await email.locator("iframe").getAttribute("sandbox"), "", "the email runs no scripts");
    const telegram = page.locator(`article[data-channel="telegram"]`);
    assert.equal(await telegram.locator(".bubble b").first().textContent(), "Muddat yaqin: hisobot");
    assert.match(await page.locator(`article[data-channel="push"] .push-toast`).textContent(), /Haftalik hisobot/);
    assert.match(await page.locator(`article[data-channel="sms"] .bubble`).textContent(), /Muddat yaqin/);
    await page.screenshot({ path: screenshotPath("console-sink") });
  });

  it("edits a user's addresses, preferences and quiet hours", async () => {
    await page.goto(`${chopar.url}/#/users/${GULNORA}`);
    await page.getByLabel("Email", { exact: true }).waitFor();
    assert.equal(await page.getByLabel("Email", { exact: true }).inputValue(), "gulnora@example.uz");
    assert.match(await page.locator("code.wrap").textContent(), /push\.example\.net/);
    await page.screenshot({ path: screenshotPath("console-user"), fullPage: true });
    await page.getByLabel("Phone (E.164)").fill("+998907654321");
    await page.locator("#pref-email").selectOption("false");
    await page.getByLabel("Until").fill("06:30");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const user = await chopar.call("GET", `/v1/users/${GULNORA}`);
    assert.equal(user.phone, "+998907654321");
    assert.equal(user.preferences.email, false);
    assert.deepEqual(user.quiet_hours, { start: "23:00", end: "06:30" });
  });

  it("lists a user's mobile devices and removes one", async () => {
    const token = "fcm:aziz_phone_APA91bHun4MxP5egoKMwt0123456789";
    const device = await chopar.call("POST", `/v1/users/${AZIZ}/devices`, { platform: "android", token, app: "uz.example.app" });
    await page.goto(`${chopar.url}/#/users/${AZIZ}`);
    const row = page.locator(`tr[data-device="${device.id}"]`);
    await row.waitFor();
    assert.match(await row.textContent(), /android/);
    assert.equal(await row.locator("code.device-token").getAttribute("title"), token);
    await row.getByRole("button", { name: `Remove device ${device.id}` }).click();
    await row.waitFor({ state: "detached" });
    assert.deepEqual((await chopar.call("GET", `/v1/users/${AZIZ}/devices`)).items, []);
  });

  it("sets the address of a channel the server registered beyond the four, from GET /v1/channels", async () => {
    const served = await (await fetch(`${chopar.url}/v1/channels`)).json();
    const pager = { name: "pager", address: "pager_number", default: true, template_fields: ["text"], settings: "channels.pager" };
    const user = await chopar.call("GET", `/v1/users/${GULNORA}`);
    assert.deepEqual(user.addresses, {}, "the built-in channels keep their addresses in fields of their own");
    // A tab of its own (signed in by the same session cookie), so that the
    // channels it fetched stay out of the other tests.
    const tab = await browser.context.newPage();
    let sent = null;
    await tab.route("**/v1/channels", (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ channels: [...served.channels, pager] }) }),
    );
    // This server registers no pager: its PUT is answered as one that does answers it.
    await tab.route(`**/v1/users/${GULNORA}`, (route) => {
      if (route.request().method() !== "PUT") return route.continue();
      sent = route.request().postDataJSON();
      return route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ ...user, addresses: sent.addresses }) });
    });
    try {
      await tab.goto(`${chopar.url}/#/users/${GULNORA}`);
      const address = tab.getByLabel("pager (pager_number)");
      await address.waitFor();
      assert.equal(await address.inputValue(), "");
      // The chat channels the server itself registers have their inputs too.
      const discord = tab.getByLabel("discord (discord_webhook)");
      assert.equal(await discord.inputValue(), "");
      await tab.getByLabel("msteams (msteams_webhook)").waitFor();
      await tab.getByLabel("whatsapp (whatsapp_number)").fill("+998901234567");
      await address.fill("PGR-0042");
      await discord.fill("https://discord.com/api/webhooks/1180/Xq9");
      await tab.getByRole("button", { name: "Save" }).click();
      await tab.getByRole("status").filter({ hasText: "Saved." }).waitFor();
      assert.deepEqual(sent.addresses, { discord: "https://discord.com/api/webhooks/1180/Xq9", msteams: null, slack: null, whatsapp: "+998901234567", pager: "PGR-0042" });
      assert.equal(sent.email, "gulnora@example.uz", "the rest of the form as before");
    } finally {
      await tab.close();
    }
  });

  it("lists each channel's providers", async () => {
    await page.goto(`${chopar.url}/#/providers`);
    await page.getByRole("heading", { name: "Providers" }).waitFor();
    const email = page.locator('tr[data-provider="email/sink"]');
    await email.waitFor();
    assert.match(await email.textContent(), /single provider/);
    const { providers } = await chopar.call("GET", "/v1/providers");
    assert.equal(await page.locator("#main tbody tr").count(), providers.length, "a row per provider");
    await page.screenshot({ path: screenshotPath("console-providers"), fullPage: true });
  });

  it("lists schedules with their next firing and previews a cron pattern", async () => {
    await page.goto(`${chopar.url}/#/schedules`);
    const row = page.locator('tr[data-schedule="pill-17"]');
    await row.waitFor();
    const schedule = await chopar.call("GET", "/v1/schedules/pill-17");
    assert.match(await row.textContent(), new RegExp(schedule.next_fire_at.replace("T", " ").replace("Z", "")));
    await page.getByLabel("Cron", { exact: true }).fill("30 2 * * *");
    await page.getByLabel("Time zone", { exact: true }).fill("Europe/Berlin");
    await page.getByRole("button", { name: "Preview" }).click();
    await page.locator("ol.preview li").first().waitFor();
    assert.equal(await page.locator("ol.preview li").count(), 5);
    await page.screenshot({ path: screenshotPath("console-schedules"), fullPage: true });
  });

  it("lists templates, shows a template's versions with a line diff, restores one and publishes its draft", async () => {
    const body = (title) => ({ category: "tasks", default_locale: "en", locales: { en: { title, body: "Due at {{task.due}}" } } });
    await chopar.call("PUT", "/v1/templates/task.due", body("Task due: {{task.title}}"));
    await chopar.call("PUT", "/v1/templates/task.due", body("Due soon: {{task.title}}"));
    await page.goto(`${chopar.url}/#/templates`);
    const listed = page.locator('tr[data-template="task.due"]');
    await listed.waitFor();
    assert.match(await listed.textContent(), /tasks.*en.*2/, "its category, locales and live version");
    await listed.getByRole("link", { name: "task.due" }).click();
    await page.getByRole("heading", { name: "Template task.due" }).waitFor();
    await page.locator('tr[data-version="2"][data-live="true"]').waitFor();
    assert.equal(await page.locator('tr[data-version="1"]').getAttribute("data-live"), "false");
    // The two newest are compared at once: the title's line, and nothing else.
    const diff = page.locator('pre.diff[data-from="1"][data-to="2"]');
    await diff.waitFor();
    assert.deepEqual(await diff.locator('[data-op="-"]').allTextContents(), ['-       "title": "Task due: {{task.title}}"\n']);
    assert.deepEqual(await diff.locator('[data-op="+"]').allTextContents(), ['+       "title": "Due soon: {{task.title}}"\n']);
    assert.ok((await diff.locator('[data-op=" "]').count()) >= 5, "the lines both have");
    await page.screenshot({ path: screenshotPath("console-template-versions"), fullPage: true });

    // Restore version 1: live again, as version 3.
    await page.getByRole("button", { name: "Restore version 1" }).click();
    await page.getByRole("status").filter({ hasText: "Version 1 restored" }).waitFor();
    await page.locator('tr[data-version="3"][data-live="true"]').waitFor();
    assert.equal((await chopar.call("GET", "/v1/templates/task.due")).locales.en.title, "Task due: {{task.title}}");
    assert.equal(await page.getByRole("button", { name: "Restore version 3" }).count(), 0, "the live version has no Restore");

    // A draft: compared with what is live, published with one button.
    await chopar.call("PUT", "/v1/templates/task.due/draft", body("Draft: {{task.title}}"));
    await page.reload();
    const draftDiff = page.locator('pre.diff[data-from="3"][data-to="draft"]');
    await draftDiff.waitFor();
    assert.deepEqual(await draftDiff.locator('[data-op="+"]').allTextContents(), ['+       "title": "Draft: {{task.title}}"\n']);
    // Any two versions on demand.
    await page.getByLabel("From", { exact: true }).selectOption("2");
    await page.getByLabel("To", { exact: true }).selectOption("1");
    await page.getByRole("button", { name: "Show diff" }).click();
    await page.locator('pre.diff[data-from="2"][data-to="1"] [data-op="+"]').filter({ hasText: "Task due" }).waitFor();
    await page.screenshot({ path: screenshotPath("console-template-draft"), fullPage: true });
    await page.getByRole("button", { name: "Publish draft" }).click();
    await page.getByRole("status").filter({ hasText: "published" }).waitFor();
    await page.locator('tr[data-version="4"][data-live="true"]').waitFor();
    await page.locator("[data-draft]").filter({ hasText: "No draft." }).waitFor();
    assert.equal((await chopar.call("GET", "/v1/templates/task.due")).locales.en.title, "Draft: {{task.title}}");
  });

  it("degrades gracefully where the server has no reports or outbox yet", async () => {
    for (const [hash, heading] of [["#/reports", "Reports"], ["#/outbox", "Outbox"]]) {
      await page.goto(`${chopar.url}/${hash}`);
      await page.getByRole("heading", { name: heading }).waitFor();
      const note = page.getByRole("note");
      const error = page.locator(".error");
      await Promise.race([note.waitFor(), page.locator(".card").first().waitFor()]);
      assert.equal(await error.count(), 0, `${heading}: no error shown`);
    }
  });
});

describe("console accounts", { skip }, () => {
  const PASSWORD = "correct horse battery staple";
  let chopar, admin, viewer, failedDelivery;

  async function signIn(page, email, password = PASSWORD) {
    await page.goto(`${chopar.url}/`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    const answered = page.waitForResponse((r) => r.url().endsWith("/v1/console/sign-in") && r.request().method() === "POST");
    await page.getByRole("button", { name: "Sign in" }).click();
    return answered;
  }

  // A request from the page with its session cookie; `csrf`: the header's
  // value, "session" for the session's own token, null for none.
  function fetchFromPage(page, method, pathname, { csrf = "session", body } = {}) {
    return page.evaluate(
      async ({ method, pathname, csrf, body }) => {
        const headers = { "Content-Type": "application/json" };
        if (csrf === "session") headers["X-CSRF-Token"] = (await (await fetch("/v1/console/session")).json()).csrf_token;
        else if (csrf !== null) headers["X-CSRF-Token"] = csrf;
        const response = await fetch(pathname, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : null };
      },
      { method, pathname, csrf, body },
    );
  }

  before(async () => {
    chopar = new Chopar({ name: "accounts" });
    const deadPort = await freePort();
    await chopar.start({
      CHOPAR_CHANNELS_EMAIL_PROVIDER: "smtp",
      CHOPAR_CHANNELS_EMAIL_SMTP_URL: `smtp://127.0.0.1:${deadPort}`,
      CHOPAR_DELIVERY_MAX_ATTEMPTS: "1",
    });
    await chopar.call("PUT", `/v1/users/${AZIZ}`, { email: "aziz@example.uz", preferences: { telegram: false, push: false } });
    const failed = await chopar.notify(AZIZ, { channels: ["email"] });
    failedDelivery = await until("the failed delivery", async () => {
      const { items } = await chopar.call("GET", `/v1/deliveries?status=failed&user_id=${AZIZ}`);
      return items.find((d) => d.notification_id === failed.id);
    });
    // The server's key adds accounts (an admin's API key may).
    await chopar.call("POST", "/v1/console/accounts", { email: "admin@example.uz", role: "admin", password: PASSWORD }, 201);
    await chopar.call("POST", "/v1/console/accounts", { email: "viewer@example.uz", role: "viewer", password: PASSWORD }, 201);
    await chopar.call("POST", "/v1/console/accounts", { email: "operator@example.uz", role: "operator", password: PASSWORD }, 201);
    admin = await launch();
    viewer = await launch();
  });

  after(async () => {
    await admin?.close();
    await viewer?.close();
    await chopar?.dispose();
  });

  it("signs in with an account once one exists, and the API key no longer does", async () => {
    const page = await admin.context.newPage();
    await page.goto(`${chopar.url}/`);
    await page.getByLabel("Email").waitFor();
    assert.equal(await page.getByLabel("API key").count(), 0, "the key's form is gone");
    const byKey = await page.evaluate(async (key) => (await fetch("/v1/console/sign-in", { method: "POST", body: JSON.stringify({ api_key: key }) })).status, API_KEY);
    assert.equal(byKey, 401);
    const answer = await signIn(page, "ADMIN@example.uz");
    assert.equal(answer.status(), 200);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    assert.equal(await page.locator("#who").textContent(), "admin@example.uz (admin)");
    await page.getByRole("link", { name: "Accounts" }).click();
    await page.locator('tr[data-account][data-role="viewer"]').waitFor();
    await page.screenshot({ path: screenshotPath("console-accounts"), fullPage: true });
  });

  it("says so after five wrong passwords, and then refuses even the right one", async () => {
    const page = await viewer.context.newPage();
    for (let i = 0; i < 5; i++) {
      const answer = await signIn(page, "operator@example.uz", "not the password at all");
      assert.equal(answer.status(), 401);
      await page.getByRole("alert").filter({ hasText: "Wrong email or password." }).waitFor();
    }
    const throttled = await signIn(page, "operator@example.uz");
    assert.equal(throttled.status(), 429);
    const retryAfter = Number(throttled.headers()["retry-after"]);
    assert.ok(retryAfter > 880 && retryAfter <= 900, `Retry-After: ${retryAfter}`);
    await page.getByRole("alert").filter({ hasText: "Too many failed sign-ins. Try again in 15 minutes." }).waitFor();
    await page.screenshot({ path: screenshotPath("console-sign-in-throttled") });
    await page.close();
  });

  it("refuses a state-changing request without the session's X-CSRF-Token", async () => {
    const page = admin.context.pages().at(-1);
    const body = { email: "csrf@example.uz", role: "viewer", password: PASSWORD };
    const without = await fetchFromPage(page, "POST", "/v1/console/accounts", { csrf: null, body });
    assert.equal(without.status, 403);
    assert.equal(without.body.error.code, "forbidden");
    const wrong = await fetchFromPage(page, "POST", "/v1/console/accounts", { csrf: "not-the-token", body });
    assert.equal(wrong.status, 403);
    const right = await fetchFromPage(page, "POST", "/v1/console/accounts", { body });
    assert.equal(right.status, 201);
    // A GET needs none.
    assert.equal((await fetchFromPage(page, "GET", "/v1/console/accounts", { csrf: null })).status, 200);
  });

  it("hides a viewer's retry button, and the server refuses the retry anyway", async () => {
    const page = await viewer.context.newPage();
    assert.equal((await signIn(page, "viewer@example.uz")).status(), 200);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    assert.equal(await page.getByRole("link", { name: "Accounts" }).isVisible(), false);
    await page.goto(`${chopar.url}/#/deliveries`);
    const row = page.locator(`tr[data-delivery="${failedDelivery.id}"][data-status="failed"]`);
    await row.waitFor();
    assert.equal(await row.locator("button").count(), 0, "no Retry button for a viewer");
    const retry = await fetchFromPage(page, "POST", `/v1/deliveries/${failedDelivery.id}/retry`);
    assert.equal(retry.status, 403);
    assert.match(retry.body.error.message, /operate/);
    assert.equal((await fetchFromPage(page, "GET", "/v1/console/accounts", { csrf: null })).status, 403);
    const { items } = await chopar.call("GET", `/v1/deliveries?status=failed&user_id=${AZIZ}`);
    assert.ok(items.some((d) => d.id === failedDelivery.id), "still failed: nothing was retried");
  });

  it("shows a viewer a template's versions and their diff without Restore or Publish, which the server refuses", async () => {
    const body = (title) => ({ default_locale: "en", locales: { en: { title } } });
    await chopar.call("PUT", "/v1/templates/task.due", body("One"));
    await chopar.call("PUT", "/v1/templates/task.due", body("Two"));
    await chopar.call("PUT", "/v1/templates/task.due/draft", body("Three"));
    // The viewer's browser, signed in already when the tests before ran.
    const page = await viewer.context.newPage();
    const heading = page.getByRole("heading", { name: "Template task.due" });
    await page.goto(`${chopar.url}/#/templates/task.due`);
    const signedOut = await Promise.race([
      page.getByLabel("Email").waitFor().then(() => true, () => false),
      heading.waitFor().then(() => false, () => false),
    ]);
    if (signedOut) {
      assert.equal((await signIn(page, "viewer@example.uz")).status(), 200);
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      await page.goto(`${chopar.url}/#/templates/task.due`);
    }
    await page.locator('pre.diff[data-from="2"][data-to="draft"]').waitFor();
    assert.equal(await page.locator("tr[data-version]").count(), 2);
    assert.equal(await page.getByRole("button", { name: /Restore|Publish/ }).count(), 0, "no Restore or Publish for a viewer");
    assert.equal((await fetchFromPage(page, "POST", "/v1/templates/task.due/versions/1/restore")).status, 403);
    assert.equal((await fetchFromPage(page, "POST", "/v1/templates/task.due/publish")).status, 403);
    assert.equal((await chopar.call("GET", "/v1/templates/task.due")).locales.en.title, "Two");
    await page.close();
  });

  it("signs the other browser out when an admin revokes its session", async () => {
    const viewerPage = viewer.context.pages().at(-1);
    assert.equal((await fetchFromPage(viewerPage, "GET", "/v1/stats/overview", { csrf: null })).status, 200);
    const page = admin.context.pages().at(-1);
    await page.goto(`${chopar.url}/#/overview`);
    await page.goto(`${chopar.url}/#/accounts`);
    const { items } = await chopar.call("GET", "/v1/console/sessions");
    const session = items.find((s) => s.email === "viewer@example.uz");
    assert.ok(session, "the viewer's session is listed");
    await page.getByRole("button", { name: `Revoke session ${session.id}` }).click();
    await page.getByRole("status").filter({ hasText: `Session ${session.id} is revoked.` }).waitFor();
    assert.equal((await fetchFromPage(viewerPage, "GET", "/v1/stats/overview", { csrf: null })).status, 401);
    await viewerPage.goto(`${chopar.url}/#/deliveries`);
    await viewerPage.getByLabel("Password").waitFor();
  });

  it("shows an admin who changed what in the audit log, and hides it from a viewer", async () => {
    const page = admin.context.pages().at(-1);
    await page.goto(`${chopar.url}/#/overview`);
    // A change by the admin's session, through the API as the console makes it.
    const changed = await fetchFromPage(page, "PUT", `/v1/users/${AZIZ}`, { body: { timezone: "Asia/Samarkand" } });
    assert.equal(changed.status, 200);
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    await page.getByLabel("Resource").selectOption("user");
    const row = page.locator("tr[data-audit]").filter({ hasText: "admin@example.uz" }).filter({ hasText: `user ${AZIZ}` }).first();
    await row.waitFor();
    await row.getByText("before / after").click();
    const timezone = row.locator('tr[data-changed="timezone"]');
    await timezone.waitFor();
    assert.match(await timezone.innerText(), /"Asia\/Samarkand"\s*$/);
    // A viewer has neither the link nor the log.
    const viewerPage = await viewer.context.newPage();
    assert.equal((await signIn(viewerPage, "viewer@example.uz")).status(), 200);
    await viewerPage.getByRole("heading", { name: "Overview" }).waitFor();
    assert.equal(await viewerPage.getByRole("link", { name: "Audit log" }).isVisible(), false);
    assert.equal((await fetchFromPage(viewerPage, "GET", "/v1/audit", { csrf: null })).status, 403);
  });

  it("signs out", async () => {
    const page = admin.context.pages().at(-1);
    await page.goto(`${chopar.url}/#/overview`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Password").waitFor();
    assert.equal((await fetchFromPage(page, "GET", "/v1/console/session", { csrf: null })).status, 401);
  });
});
