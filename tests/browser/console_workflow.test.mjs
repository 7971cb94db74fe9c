// The console's notification page on a real workflow run: a template with
// steps (email now, a delay, then SMS only while the notification is still
// unseen), a notification of its type, and the page drawing each step's
// outcome as the engine records it; a run held by a long delay shows its
// next step and when it is due, and no next step once canceled.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { chromiumPath, launch, screenshotPath } from "./lib/browser.mjs";
import { API_KEY, Chopar, skipReason, until } from "./lib/chopar.mjs";

const skip = skipReason() || (chromiumPath() ? false : "chromium is not installed");
const MALIKA = 31;

describe("console workflow timeline", { skip }, () => {
  let chopar, browser, page;

  before(async () => {
    chopar = new Chopar({ name: "console_workflow" });
    await chopar.start({});
    await chopar.call("PUT", `/v1/users/${MALIKA}`, { email: "malika@example.uz", phone: "+998901112233", timezone: "Asia/Tashkent", locale: "uz", preferences: { sms: true } });
    await chopar.call("PUT", "/v1/templates/task.escalated", {
      default_locale: "uz",
      locales: { uz: { title: "Vazifa: {{task}}" } },
      steps: [
        { type: "channel", channel: "email" },
        { type: "delay", seconds: 1 },
        // Reads the email's outcome: the run waits for the email to be sent.
        { type: "channel", channel: "sms", condition: 'notification.seen == false && steps[0].outcome == "sent"' },
      ],
    });
    await chopar.call("PUT", "/v1/templates/task.later", {
      default_locale: "uz",
      locales: { uz: { title: "Keyinroq: {{task}}" } },
      steps: [
        { type: "channel", channel: "email" },
        { type: "delay", seconds: 3600 },
        { type: "channel", channel: "sms" },
      ],
    });
    browser = await launch({ viewport: { width: 1280, height: 860 } });
    page = await browser.context.newPage();
    await page.goto(`${chopar.url}/`);
    await page.getByLabel("API key").fill(API_KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await chopar?.dispose();
  });

  it("draws each step of a finished run with its outcome, channel and time", async () => {
    const created = await chopar.notify(MALIKA, { type: "task.escalated", data: { task: "hisobot" } });
    const shown = await until("the run to finish", async () => {
      const n = await chopar.call("GET", `/v1/notifications/${created.id}`);
      return n.workflow && n.workflow.status === "done" && n.workflow.steps.length === 3 ? n : null;
    }, 20000);
    await page.goto(`${chopar.url}/#/notifications/${created.id}`);
    const card = page.locator('section[data-workflow="done"]');
    await card.getByRole("heading", { name: "Workflow" }).waitFor();
    const steps = card.getByRole("list", { name: "Workflow steps" }).locator("li");
    assert.equal(await steps.count(), 3, "no next step once done");
    const drawn = await steps.evaluateAll((items) => items.map((li) => [li.dataset.step, li.dataset.outcome]));
    assert.deepEqual(drawn, shown.workflow.steps.map((s) => [String(s.index), s.outcome]));
    assert.equal(drawn[0][1], "sent");
    assert.equal(drawn[1][1], "delayed");
    assert.equal(drawn[2][1], "queued", "unseen and the email sent: the SMS went (nothing waits for its outcome)");
    assert.equal(await steps.nth(0).locator(".channel-email").count(), 1);
    assert.equal(await steps.nth(2).locator(".channel-sms").count(), 1);
    assert.match(await steps.nth(1).locator(".timeline-times").textContent(), /until \d{4}-\d\d-\d\d /);
    await page.screenshot({ path: screenshotPath("console-workflow-done"), fullPage: true });
  });

  it("shows a run held by a delay with its next step and when it is due, and none once canceled", async () => {
    const created = await chopar.notify(MALIKA, { type: "task.later", data: { task: "hisobot" }, cancellation_key: "task:later" });
    const shown = await until("the run to wait", async () => {
      const n = await chopar.call("GET", `/v1/notifications/${created.id}`);
      return n.workflow && n.workflow.status === "active" && n.workflow.steps.length === 2 ? n : null;
    });
    await page.goto(`${chopar.url}/#/notifications/${created.id}`);
    const card = page.locator('section[data-workflow="active"]');
    await card.getByRole("heading", { name: "Workflow" }).waitFor();
    const next = card.locator('li[data-next="active"]');
    assert.equal(await next.getAttribute("data-step"), String(shown.workflow.step));
    assert.match(await next.textContent(), new RegExp(`due ${shown.workflow.due_at.replace("T", " ").replace("Z", " UTC")}`));

    await chopar.call("POST", "/v1/notifications/cancel", { cancellation_key: "task:later", user_id: MALIKA });
    // The page reads the notification again every 3 seconds.
    await page.locator('section[data-workflow="canceled"]').waitFor({ timeout: 10000 });
    assert.equal(await page.locator("li[data-next]").count(), 0, "a canceled run has no next step");
  });
});
