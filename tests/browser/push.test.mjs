// The bell's Web Push opt-in in a real browser: a host page on another origin
// serves the one-line worker that loads chopar's, the bell offers push when
// the server has VAPID keys, the worker registers, and a push delivered to
// it shows a notification with the payload's title, body and link.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, before, describe, it } from "node:test";

import { chromiumPath, launch } from "./lib/browser.mjs";
import { Chopar, skipReason } from "./lib/chopar.mjs";
import { startHostPage } from "./lib/host.mjs";

const skip = skipReason() || (chromiumPath() ? false : "chromium is not installed");
const USER = 303;

// A fresh VAPID key pair: the uncompressed P-256 point and the private
// scalar, base64url, as [channels.push] takes them.
function vapidKeys() {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const jwk = privateKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x, "base64url"), Buffer.from(jwk.y, "base64url")]);
  return { publicKey: point.toString("base64url"), privateKey: jwk.d };
}

describe("chopar-bell push opt-in", { skip }, () => {
  let chopar, host, browser, page, keys, token;

  before(async () => {
    keys = vapidKeys();
    chopar = new Chopar({ name: "push" });
    await chopar.start({
      CHOPAR_CHANNELS_PUSH_VAPID_PUBLIC_KEY: keys.publicKey,
      CHOPAR_CHANNELS_PUSH_VAPID_PRIVATE_KEY: keys.privateKey,
    });
    await chopar.call("PUT", `/v1/users/${USER}`, { locale: "en" });
    token = await chopar.token(USER);
    host = await startHostPage(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>App</title>
<script type="module" src="${chopar.url}/widget/chopar-bell.js"></script></head>
<body><chopar-bell server="${chopar.url}" token="${token}" push sw="/chopar-sw.js"></chopar-bell></body></html>`,
      { "/chopar-sw.js": `importScripts(${JSON.stringify(`${chopar.url}/widget/chopar-sw.js`)});\n` },
    );
    browser = await launch();
    await browser.context.grantPermissions(["notifications"], { origin: host.url });
    page = await browser.context.newPage();
  });

  after(async () => {
    await browser?.close();
    await host?.close();
    await chopar?.dispose();
  });

  it("offers push, registers the host's worker, and the worker shows a pushed notification", async () => {
    await page.goto(host.url);
    await page.locator("chopar-bell .bell").click();
    const offer = page.getByRole("button", { name: "Enable push notifications" });
    await offer.waitFor();

    // The same cross-origin call the bell makes once the browser subscribed
    // (a real push service is out of reach here): preflight, then 201.
    const status = await page.evaluate(
      async ([server, token]) =>
        (
          await fetch(`${server}/v1/inbox/push-subscriptions`, {
            method: "POST",
            headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
            body: JSON.stringify({
              endpoint: "https://push.example.net/send/303",
              keys: { p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", auth: "BTBZMqHH6r4Tts7J_aSIgg" },
            }),
          })
        ).status,
      [chopar.url, token],
    );
    assert.equal(status, 201);
    assert.equal((await chopar.call("GET", `/v1/users/${USER}/push-subscriptions`)).items.length, 1);

    const cdp = await browser.context.newCDPSession(page);
    const registered = new Promise((resolve) =>
      cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
        const ours = registrations.find((r) => r.scopeURL.startsWith(host.url) && !r.isDeleted);
        if (ours) resolve(ours.registrationId);
      }),
    );
    await cdp.send("ServiceWorker.enable");
    await offer.click(); // permission (granted), registration, then the subscription attempt
    const registrationId = await registered;
    await page.evaluate(() => navigator.serviceWorker.ready);

    // Headless Chromium has no notification centre to keep what is shown
    // (getNotifications() may come back empty), so the worker's call is
    // observed where it is made: showNotification on its registration.
    const worker = browser.context.serviceWorkers()[0] || (await browser.context.waitForEvent("serviceworker"));
    await worker.evaluate(() => {
      self.__shown = [];
      const show = self.registration.showNotification.bind(self.registration);
      self.registration.showNotification = (title, options) =>
        show(title, options).then(() => self.__shown.push({ title, body: options.body, tag: options.tag, url: options.data.url }));
    });
    const payload = { id: 17, title: "Sitramon", body: "18:00 dori vaqti", url: `${host.url}/pills/17`, type: "pill.reminder" };
    await cdp.send("ServiceWorker.deliverPushMessage", { origin: `${host.url}/`, registrationId, data: JSON.stringify(payload) });
    const deadline = Date.now() + 10000;
    let shown = [];
    while (shown.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      shown = await worker.evaluate(() => self.__shown);
    }
    assert.deepEqual(shown, [{ title: "Sitramon", body: "18:00 dori vaqti", tag: "chopar-17", url: `${host.url}/pills/17` }]);
  });
});
