// docs/openapi.yaml against a running chopar: every response of a walk
// through the whole API (successes and errors) must be one the description
// documents for its operation and status, its JSON body valid against the
// response schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it), and it
// must carry X-Request-Id. GET /openapi.yaml must serve the file itself.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { API_KEY, Chopar, skipReason } from "../browser/lib/chopar.mjs";
import { ajv, resolve, spec, specText, templateOf, validatorFor } from "./lib/openapi.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const checked = [];

// The media types (without parameters) a documented response may carry.
function mediaTypesOf(template, method, status) {
  const declared = spec.paths[template][method].responses[String(status)];
  return Object.keys(resolve(declared).content ?? {});
}

// Calls chopar and checks the response against the description. `form`
// sends an application/x-www-form-urlencoded body instead of JSON; `raw`
// sends its text as it is, with the Content-Type `type`.
async function call(chopar, method, pathname, { body, form, raw, type, auth = `Bearer ${API_KEY}`, expect } = {}) {
  const headers = {
    "Content-Type": type ?? (form === undefined ? "application/json" : "application/x-www-form-urlencoded"),
  };
  if (auth) headers.Authorization = auth;
  const response = await fetch(`${chopar.url}${pathname}`, {
    method,
    headers,
    body: raw !== undefined ? raw : form !== undefined ? form : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const where = `${method} ${pathname} → ${response.status} ${text.slice(0, 300)}`;
  if (expect !== undefined) assert.equal(response.status, expect, where);
  const template = templateOf(pathname);
  assert.ok(template, `${where}: no path of the description matches`);
  const operation = spec.paths[template][method.toLowerCase()];
  assert.ok(operation, `${where}: ${method} ${template} is not described`);
  assert.ok(operation.responses[String(response.status)], `${where}: status ${response.status} is not described`);
  assert.match(response.headers.get("x-request-id") ?? "", /^[A-Za-z0-9._:/+=@-]{1,128}$/, `${where}: X-Request-Id`);
  const mediaTypes = mediaTypesOf(template, method.toLowerCase(), response.status);
  if (mediaTypes.length > 0) {
    const got = (response.headers.get("content-type") ?? "").split(";")[0].trim();
    assert.ok(mediaTypes.includes(got), `${where}: Content-Type ${got} is not one of ${mediaTypes.join(", ")}`);
  }
  const validate = validatorFor(template, method.toLowerCase(), response.status);
  let parsed = null;
  if (validate) {
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/, where);
    parsed = JSON.parse(text);
    assert.ok(validate(parsed), `${where}\n${ajv.errorsText(validate.errors)}`);
  }
  checked.push(`${method.toUpperCase()} ${template} ${response.status}`);
  return { status: response.status, body: parsed, text };
}

const skip = skipReason() || false;

// Every route src/http registers with a literal method and path (the web
// files are registered from web/ in a loop, and described one by one).
describe("the routes of src/http", () => {
  it("are all described", () => {
    const sources = path.join(here, "../../src/http");
    const described = new Set();
    for (const [template, item] of Object.entries(spec.paths)) {
      for (const method of Object.keys(item)) described.add(`${method.toUpperCase()} ${template}`);
    }
    const missing = [];
    for (const file of fs.readdirSync(sources).filter((name) => name.endsWith(".cpp") && !name.endsWith("test.cpp"))) {
      const text = fs.readFileSync(path.join(sources, file), "utf8");
      for (const [, method, route] of text.matchAll(/router\.Add\(\s*"([A-Z]+)",\s*"([^"]+)"/g)) {
        const template = route.replace(/\{(\w+):\w+\}/g, "{$1}");
        if (!described.has(`${method} ${template}`)) missing.push(`${method} ${template} (${file})`);
      }
    }
    assert.deepEqual(missing, []);
  });
});

describe("the OpenAPI description", { skip }, () => {
  let chopar;

  before(async () => {
    chopar = new Chopar({ name: "openapi" });
    await chopar.start();
  });
  after(async () => {
    if (chopar) await chopar.dispose();
  });

  it("is served at /openapi.yaml", async () => {
    const { text } = await call(chopar, "GET", "/openapi.yaml", { auth: null, expect: 200 });
    assert.ok(text === specText, "GET /openapi.yaml is not docs/openapi.yaml (was chopar rebuilt?)");
  });

  it("is rendered at /docs by a script the server serves too", async () => {
    const page = await call(chopar, "GET", "/docs", { auth: null, expect: 200 });
    assert.match(page.text, /<rapi-doc[^>]* spec-url="\/openapi\.yaml"/);
    assert.match(page.text, /<script type="module" src="\/docs\/rapidoc-min\.js">/);
    const bundle = await call(chopar, "GET", "/docs/rapidoc-min.js", { auth: null, expect: 200 });
    assert.ok(bundle.text.startsWith("/*! RapiDoc "), "the bundle is RapiDoc's");
  });

  it("describes every response of a walk through the API", async () => {
    const P256DH = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const AUTH = "BTBZMqHH6r4Tts7J_aSIgg";
    await call(chopar, "GET", "/healthz", { auth: null, expect: 200 });
    await call(chopar, "GET", "/v1/channels", { auth: null, expect: 200 });
    await call(chopar, "GET", "/v1/providers", { expect: 200 });
    await call(chopar, "GET", "/v1/providers", { auth: null, expect: 401 });
    await call(chopar, "GET", "/v1/users/1", { auth: "Bearer wrong", expect: 401 });
    await call(chopar, "GET", "/v1/users/1", { expect: 404 });
    // Quiet hours an hour long, starting two hours from now in Tashkent
    // (UTC+5, no DST): described by the walk, never holding its deliveries.
    const hour = (h) => `${String(h % 24).padStart(2, "0")}:00`;
    const quietStart = new Date().getUTCHours() + 5 + 2;
    await call(chopar, "PUT", "/v1/users/1", {
      body: { email: "aziz@example.uz", phone: "+998 90 123-45-67", timezone: "Asia/Tashkent", locale: "uz",
              preferences: { sms: true }, quiet_hours: { start: hour(quietStart), end: hour(quietStart + 1) } },
      expect: 200,
    });
    await call(chopar, "PUT", "/v1/users/2", { body: { email: "gulnora@example.uz", admin: true }, expect: 200 });
    await call(chopar, "PUT", "/v1/users/3", { body: { nickname: "x" }, expect: 400 });
    await call(chopar, "POST", "/v1/users/import", {
      raw: '{"id": 40, "email": "a40@example.uz", "data": {"plan": "pro"}}\n{"id": 41, "email": 5}\n',
      type: "application/x-ndjson", expect: 200 });
    await call(chopar, "POST", "/v1/users/import", { raw: '{"id": 42}', expect: 400 });
    await call(chopar, "GET", "/v1/users/1", { expect: 200 });
    await call(chopar, "GET", "/v1/users?limit=1", { expect: 200 });
    await call(chopar, "PUT", "/v1/users/1/telegram", { body: { chat_id: 900000001 }, expect: 200 });
    await call(chopar, "GET", "/v1/users/1", { expect: 200 });
    await call(chopar, "DELETE", "/v1/users/1/telegram", { expect: 204 });
    await call(chopar, "GET", "/v1/users/1/telegram/link", { expect: 503 });
    const subscription = { endpoint: "https://push.example.net/send/aziz-1", keys: { p256dh: P256DH, auth: AUTH } };
    const added = await call(chopar, "POST", "/v1/users/1/push-subscriptions", { body: subscription, expect: 201 });
    await call(chopar, "POST", "/v1/users/1/push-subscriptions", { body: subscription, expect: 200 });
    await call(chopar, "GET", "/v1/users/1/push-subscriptions", { expect: 200 });
    await call(chopar, "DELETE", `/v1/users/1/push-subscriptions/${added.body.id}`, { expect: 204 });
    await call(chopar, "DELETE", `/v1/users/1/push-subscriptions/${added.body.id}`, { expect: 404 });
    const device = { platform: "android", token: "fcm:contract_APA91bHun4MxP5egoKMwt", app: "uz.example.app" };
    const phone = await call(chopar, "POST", "/v1/users/1/devices", { body: device, expect: 201 });
    await call(chopar, "POST", "/v1/users/1/devices", { body: device, expect: 200 });
    await call(chopar, "POST", "/v1/users/1/devices", { body: { platform: "symbian", token: "x" }, expect: 400 });
    await call(chopar, "POST", "/v1/users/999/devices", { body: device, expect: 404 });
    await call(chopar, "GET", "/v1/users/1/devices", { expect: 200 });
    await call(chopar, "GET", "/v1/users/999/devices", { expect: 404 });
    await call(chopar, "DELETE", `/v1/users/1/devices/${phone.body.id}`, { expect: 204 });
    await call(chopar, "DELETE", `/v1/users/1/devices/${phone.body.id}`, { expect: 404 });
    // Erasure: the user is gone at once, PUT waits for the erasure to complete.
    await call(chopar, "PUT", "/v1/users/77", { body: { email: "gone@example.uz" }, expect: 200 });
    await call(chopar, "DELETE", "/v1/users/77", { expect: 202 });
    await call(chopar, "DELETE", "/v1/users/77", { expect: 202 });
    await call(chopar, "GET", "/v1/users/77", { expect: 404 });
    // 409 while the erasure is pending; this server's own erasure loop may
    // have completed it already, and then PUT makes a new user (200). Either
    // answer must be as described; the 409 itself is pinned by
    // UserErasureTest.TheUserIsInvisibleFromTheRequestOn, with no loop running.
    const again = await call(chopar, "PUT", "/v1/users/77", { body: { locale: "ru" } });
    assert.ok([409, 200].includes(again.status), `PUT /v1/users/77 after DELETE → ${again.status}`);
    await call(chopar, "GET", "/v1/users/77/erasure", { expect: 200 });
    await call(chopar, "GET", "/v1/users/424242/erasure", { expect: 404 });
    await call(chopar, "DELETE", "/v1/users/424242", { expect: 404 });
    await call(chopar, "POST", "/v1/users/erase", { body: { ids: [77, 424242] }, expect: 202 });
    await call(chopar, "POST", "/v1/users/erase", { body: { ids: [] }, expect: 400 });
    await call(chopar, "GET", "/v1/users/1/export", { expect: 200 });
    await call(chopar, "GET", "/v1/users/1/export?cursor=x", { expect: 400 });
    await call(chopar, "GET", "/v1/users/424242/export", { expect: 404 });
    const token = (await call(chopar, "GET", "/v1/users/1/token", { expect: 200 })).body.token;

    const notification = { user_id: 1, type: "task.due", title: "Muddat yaqin", body: "Non olish", link: "/tasks/1",
                           data: { task_id: 1 }, dedup_key: "task:1", channels: ["email", "sms"] };
    const created = await call(chopar, "POST", "/v1/notifications", { body: notification, expect: 201 });
    await call(chopar, "POST", "/v1/notifications", { body: notification, expect: 200 });
    await call(chopar, "POST", "/v1/notifications", { body: { ...notification, type: "BAD" }, expect: 400 });
    await call(chopar, "POST", "/v1/notifications", { body: { ...notification, user_id: 99 }, expect: 404 });
    await call(chopar, "POST", "/v1/notifications/batch", {
      body: { notifications: [{ user_id: 2, type: "order.shipped", title: "Yuborildi" }, { user_id: 99, type: "x", title: "y" },
                              { user_id: 1, type: "BAD", title: "y" }, 5] },
      expect: 200,
    });
    await call(chopar, "POST", "/v1/notifications", {
      body: { ...notification, dedup_key: "task:1:later", delay_seconds: 3600, cancellation_key: "task:1" }, expect: 201,
    });
    await call(chopar, "POST", "/v1/notifications/cancel", { body: { cancellation_key: "task:1", user_id: 1 }, expect: 200 });
    await call(chopar, "POST", "/v1/notifications/cancel", { body: { user_id: 1 }, expect: 400 });
    await call(chopar, "GET", `/v1/notifications/${created.body.id}`, { expect: 200 });
    await call(chopar, "GET", "/v1/notifications/999999", { expect: 404 });
    await call(chopar, "GET", "/v1/users/1/notifications?limit=1", { expect: 200 });
    await call(chopar, "GET", "/v1/users/1/notifications?limit=0", { expect: 400 });
    await call(chopar, "GET", "/v1/users/1/notifications/unread-count", { expect: 200 });
    await call(chopar, "POST", "/v1/users/1/notifications/read", { body: { ids: [created.body.id] }, expect: 200 });
    // The other inbox states by the API key, and their refusals.
    const one = { ids: [created.body.id] };
    for (const change of ["seen", "unread", "archive", "unarchive", "unsnooze"]) {
      await call(chopar, "POST", `/v1/users/1/notifications/${change}`, { body: one, expect: 200 });
    }
    await call(chopar, "POST", "/v1/users/1/notifications/snooze", { body: { ...one, minutes: 60 }, expect: 200 });
    await call(chopar, "POST", "/v1/users/1/notifications/snooze", { body: one, expect: 400 });
    await call(chopar, "POST", "/v1/users/999999/notifications/archive", { body: one, expect: 404 });
    await call(chopar, "GET", "/v1/users/1/notifications?snoozed=true&category=tasks,billing&tag=x&seen=false", { expect: 200 });
    await call(chopar, "GET", "/v1/users/1/notifications?archived=maybe", { expect: 400 });

    // The sink marks the deliveries sent.
    let deliveries;
    for (let i = 0; i < 100; ++i) {
      deliveries = (await call(chopar, "GET", "/v1/deliveries?user_id=1", { expect: 200 })).body.items;
      if (deliveries.length === 2 && deliveries.every((d) => d.status === "sent")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await call(chopar, "GET", "/v1/deliveries?status=sent&channel=email&limit=1", { expect: 200 });
    await call(chopar, "GET", "/v1/deliveries?status=lost", { expect: 400 });
    await call(chopar, "POST", `/v1/deliveries/${deliveries[0].id}/retry`, { expect: 409 });
    await call(chopar, "POST", "/v1/deliveries/999999/retry", { expect: 404 });

    const bearer = `Bearer ${token}`;
    await call(chopar, "GET", "/v1/inbox/notifications?limit=5", { auth: bearer, expect: 200 });
    await call(chopar, "GET", "/v1/inbox/unread-count", { auth: bearer, expect: 200 });
    await call(chopar, "POST", "/v1/inbox/read", { auth: bearer, body: { all: true }, expect: 200 });
    // The inbox states, the filtered lists and the badge's count, by the token.
    for (const change of ["seen", "unread", "archive", "unarchive", "unsnooze"]) {
      await call(chopar, "POST", `/v1/inbox/${change}`, { auth: bearer, body: { all: true, category: "tasks" }, expect: 200 });
    }
    await call(chopar, "POST", "/v1/inbox/snooze", {
      auth: bearer, body: { all: true, until: new Date(Date.now() + 3600e3).toISOString() }, expect: 200,
    });
    await call(chopar, "POST", "/v1/inbox/snooze", { auth: bearer, body: { all: true, minutes: 0 }, expect: 400 });
    await call(chopar, "POST", "/v1/inbox/archive", { auth: "Bearer 1.bad", body: { all: true }, expect: 401 });
    await call(chopar, "GET", "/v1/inbox/notifications?archived=true&tag=billing", { auth: bearer, expect: 200 });
    await call(chopar, "GET", "/v1/inbox/count", { auth: bearer, expect: 200 });
    await call(chopar, "GET", "/v1/inbox/count?count=unread&category=tasks&tag=billing", { auth: bearer, expect: 200 });
    await call(chopar, "GET", "/v1/inbox/count?count=all", { auth: bearer, expect: 400 });
    await call(chopar, "GET", "/v1/inbox/count", { auth: "Bearer 1.bad", expect: 401 });
    await call(chopar, "POST", "/v1/inbox/unsnooze", { auth: bearer, body: { all: true }, expect: 200 });
    // An event action pressed, again, and the presses refused.
    const invite = await call(chopar, "POST", "/v1/notifications", {
      body: { user_id: 1, type: "invite.sent", title: "Taklif", tags: ["invites"],
              actions: [{ label: "Ochish", url: "/invites/7" }, { label: "Qabul qilish", event: "invite.accept" }] },
      expect: 201,
    });
    const press = `/v1/inbox/notifications/${invite.body.id}/actions`;
    await call(chopar, "POST", `${press}/1`, { auth: bearer, expect: 200 });
    await call(chopar, "POST", `${press}/1`, { auth: bearer, expect: 200 });
    await call(chopar, "POST", `${press}/0`, { auth: bearer, expect: 409 });
    await call(chopar, "POST", `${press}/2`, { auth: bearer, expect: 400 });
    await call(chopar, "POST", "/v1/inbox/notifications/999999/actions/1", { auth: bearer, expect: 404 });
    await call(chopar, "POST", `${press}/1`, { auth: "Bearer 1.bad", expect: 401 });
    await call(chopar, "POST", `/v1/users/1/notifications/${invite.body.id}/actions/1`, { expect: 200 });
    await call(chopar, "POST", `/v1/users/1/notifications/${invite.body.id}/actions/0`, { expect: 409 });
    await call(chopar, "POST", `/v1/users/2/notifications/${invite.body.id}/actions/1`, { expect: 404 });
    const inbox = await call(chopar, "GET", "/v1/inbox/notifications?limit=1", { auth: bearer, expect: 200 });
    assert.equal(inbox.body.items[0].actions[1].event, "invite.accept");
    await call(chopar, "GET", "/v1/inbox/unread-count", { auth: "Bearer 1.bad", expect: 401 });
    await call(chopar, "GET", "/v1/inbox/vapid-public-key", { auth: bearer, expect: 404 });
    await call(chopar, "POST", "/v1/inbox/push-subscriptions", { auth: bearer, body: subscription, expect: 201 });
    await call(chopar, "POST", "/v1/inbox/devices", { auth: bearer, body: { platform: "ios", token: "a".repeat(64) }, expect: 201 });
    await call(chopar, "GET", "/v1/inbox/preferences", { auth: bearer, expect: 200 });
    await call(chopar, "PUT", "/v1/inbox/preferences", {
      auth: bearer, body: { categories: { marketing: false }, types: { "task.due": { telegram: false } } }, expect: 200,
    });
    await call(chopar, "PUT", "/v1/inbox/preferences", { auth: bearer, body: { junk1: true }, expect: 400 });
    await call(chopar, "GET", "/v1/inbox/preferences", { auth: "Bearer 1.bad", expect: 401 });

    // The unsubscribe link of the email the sink "sent", its pages and a
    // forged one.
    const emails = (await call(chopar, "GET", "/v1/sink/messages?channel=email&user_id=1", { expect: 200 })).body.items;
    const mailed = emails.map((m) => m.body ?? "").join("\n").match(/\/v1\/unsubscribe\?[^\s"<>]+/);
    assert.ok(mailed, "no unsubscribe link in the sink's email");
    const link = mailed[0];
    const forged = link.replace(/sig=[^&]*/, "sig=AAAA");
    const confirm = await call(chopar, "GET", link, { auth: null, expect: 200 });
    await call(chopar, "GET", forged, { auth: null, expect: 403 });
    await call(chopar, "POST", link, { auth: null, form: "List-Unsubscribe=One-Click", expect: 200 });
    await call(chopar, "POST", forged, { auth: null, form: "List-Unsubscribe=One-Click", expect: 403 });
    const pageLink = confirm.text.match(/\/v1\/unsubscribe\/preferences\?[^"<>\s]+/)[0].replaceAll("&amp;", "&");
    await call(chopar, "GET", pageLink, { auth: null, expect: 200 });
    await call(chopar, "POST", pageLink, { auth: null, form: "shown=marketing&marketing.email=on", expect: 200 });
    await call(chopar, "GET", "/v1/unsubscribe/preferences?user=1&sig=AAAA", { auth: null, expect: 403 });
    await call(chopar, "POST", "/v1/unsubscribe/preferences?user=1", { auth: null, form: "shown=marketing", expect: 403 });

    const schedule = { user_id: 1, cron: "5 18 * * *", notification: { type: "pill.reminder", title: "Sitramon", channels: ["email"] },
                       catchup: { policy: "latest", window_seconds: 86400 } };
    await call(chopar, "PUT", "/v1/schedules/pill-17", { body: schedule, expect: 200 });
    await call(chopar, "PUT", "/v1/schedules/never", { body: { ...schedule, cron: "0 0 30 2 *" }, expect: 200 });
    await call(chopar, "PUT", "/v1/schedules/bad", { body: { ...schedule, cron: "0 24 * * *" }, expect: 400 });
    await call(chopar, "GET", "/v1/schedules/pill-17", { expect: 200 });
    await call(chopar, "GET", "/v1/schedules/never", { expect: 200 });
    await call(chopar, "GET", "/v1/schedules?user_id=1&limit=1", { expect: 200 });
    await call(chopar, "PUT", "/v1/schedules", { body: { schedules: [{ key: "a-1", ...schedule }, { key: "a-2", ...schedule }] }, expect: 200 });
    await call(chopar, "POST", "/v1/schedules/preview", {
      body: { cron: "30 2 * * *", timezone: "Europe/Berlin", after: "2027-03-27T00:00:00Z", count: 3 },
      expect: 200,
    });
    await call(chopar, "DELETE", "/v1/schedules/a-2", { expect: 204 });
    await call(chopar, "DELETE", "/v1/schedules/a-2", { expect: 404 });

    // Templates: every member of a block and every workflow setting, as the
    // answers show them.
    const release = {
      category: "projects", default_locale: "en",
      locales: {
        en: { title: "{{project}}: version {{version}} is out", body: "See what changed",
              email: { subject: "{{project}} {{version}}", html: "<p>{{project}} <b>{{version}}</b></p>", text: "{{project}} {{version}}" },
              telegram: { text: "<b>{{project}}</b> {{version}}" }, push: { title: "{{project}}", body: "{{version}}" },
              sms: { text: "{{project}} {{version}}" } },
        uz: { title: "{{project}}: {{version}} versiya chiqdi", body: null },
      },
      throttle: { limit: 3, window_seconds: 3600 },
      escalate: { after_seconds: 900, channels: ["email"] },
    };
    await call(chopar, "PUT", "/v1/templates/project.release", { body: release, expect: 200 });
    await call(chopar, "PUT", "/v1/templates/project.comment", {
      body: { default_locale: "en", locales: { en: { title: "{{author}} commented on {{project}}",
              email: { subject: "{{digest.count}} new comments on {{project}}" } } },
              digest: { window_seconds: 600, key: "{{project}}", max_items: 50 } },
      expect: 200,
    });
    await call(chopar, "PUT", "/v1/templates/project.release", {
      body: { ...release, locales: { uz: { title: "x", fax: { text: "y" } } }, default_locale: "uz" }, expect: 400,
    });
    await call(chopar, "PUT", "/v1/templates/Project", { body: release, expect: 400 });
    await call(chopar, "GET", "/v1/templates/project.release", { expect: 200 });
    await call(chopar, "GET", "/v1/templates/project.none", { expect: 404 });
    await call(chopar, "GET", "/v1/templates", { expect: 200 });
    await call(chopar, "POST", "/v1/templates/preview", {
      body: { type: "project.release", locale: "en", data: { project: "<Alpha>", version: "2.0" } }, expect: 200,
    });
    await call(chopar, "POST", "/v1/templates/preview", {
      body: { template: { title: "Salom, {{user.id}}", sms: { text: "{{n}}" } }, user_id: 1, data: { n: 5 } }, expect: 200,
    });
    await call(chopar, "POST", "/v1/templates/preview", { body: { type: "project.none" }, expect: 404 });
    await call(chopar, "POST", "/v1/templates/preview", { body: { template: { title: "x" }, user_id: 999 }, expect: 404 });
    await call(chopar, "POST", "/v1/templates/preview", { body: {}, expect: 400 });
    // Versions and drafts of a template.
    await call(chopar, "GET", "/v1/templates/project.release/versions?limit=2", { expect: 200 });
    await call(chopar, "GET", "/v1/templates/project.release/versions?cursor=x", { expect: 400 });
    await call(chopar, "GET", "/v1/templates/project.release/versions/1", { expect: 200 });
    await call(chopar, "GET", "/v1/templates/project.release/versions/99", { expect: 404 });
    await call(chopar, "POST", "/v1/templates/project.release/versions/1/restore", { expect: 200 });
    await call(chopar, "POST", "/v1/templates/project.release/versions/99/restore", { expect: 404 });
    await call(chopar, "GET", "/v1/templates/project.release/draft", { expect: 404 });
    await call(chopar, "PUT", "/v1/templates/project.release/draft", { body: release, expect: 200 });
    await call(chopar, "PUT", "/v1/templates/project.release/draft", { body: { locales: {} }, expect: 400 });
    await call(chopar, "GET", "/v1/templates/project.release/draft", { expect: 200 });
    await call(chopar, "POST", "/v1/templates/preview", {
      body: { type: "project.release", draft: true, locale: "en", data: { project: "A", version: "1" } }, expect: 200,
    });
    await call(chopar, "POST", "/v1/templates/project.release/publish", { expect: 200 });
    await call(chopar, "POST", "/v1/templates/project.release/publish", { expect: 404 });
    await call(chopar, "PUT", "/v1/templates/project.release/draft", { body: release, expect: 200 });
    await call(chopar, "DELETE", "/v1/templates/project.release/draft", { expect: 204 });
    await call(chopar, "DELETE", "/v1/templates/project.release/draft", { expect: 404 });
    // Layouts and partials: a template in a layout, which stays while the
    // template names it; a preview of the email in it.
    await call(chopar, "PUT", "/v1/partials/contract.sig", { body: { text: "-- {{project}}" }, expect: 200 });
    await call(chopar, "PUT", "/v1/partials/contract.sig", { body: { text: "{{#open}}" }, expect: 400 });
    await call(chopar, "GET", "/v1/partials/contract.sig", { expect: 200 });
    await call(chopar, "GET", "/v1/partials/contract.none", { expect: 404 });
    await call(chopar, "GET", "/v1/partials", { expect: 200 });
    await call(chopar, "PUT", "/v1/layouts/contract.brand", {
      body: { html: "<div>{{{content}}}{{> contract.sig}}</div>", text: null }, expect: 200,
    });
    await call(chopar, "PUT", "/v1/layouts/contract.brand", { body: { html: "no content" }, expect: 400 });
    await call(chopar, "GET", "/v1/layouts/contract.brand", { expect: 200 });
    await call(chopar, "GET", "/v1/layouts/contract.none", { expect: 404 });
    await call(chopar, "GET", "/v1/layouts", { expect: 200 });
    await call(chopar, "PUT", "/v1/templates/project.branded", {
      body: { default_locale: "en", layout: "contract.brand", locales: { en: { title: "{{project}}" } } }, expect: 200,
    });
    await call(chopar, "POST", "/v1/templates/preview", {
      body: { type: "project.branded", data: { project: "Alpha" } }, expect: 200,
    });
    await call(chopar, "POST", "/v1/templates/preview", {
      body: { template: { title: "x", email: { html: "{{> p}}" } }, partials: { p: "[{{n}}]" }, layout: "contract.brand", data: { n: 1 } },
      expect: 200,
    });
    await call(chopar, "DELETE", "/v1/layouts/contract.brand", { expect: 409 });
    await call(chopar, "DELETE", "/v1/templates/project.branded", { expect: 204 });
    await call(chopar, "DELETE", "/v1/layouts/contract.brand", { expect: 204 });
    await call(chopar, "DELETE", "/v1/layouts/contract.brand", { expect: 404 });
    await call(chopar, "DELETE", "/v1/partials/contract.sig", { expect: 204 });
    await call(chopar, "DELETE", "/v1/partials/contract.sig", { expect: 404 });
    // Versions and drafts of a layout and a partial (a draft published makes one).
    await call(chopar, "PUT", "/v1/layouts/contract/draft", { body: { html: "<div>{{{content}}}</div>" }, expect: 200 });
    await call(chopar, "PUT", "/v1/layouts/contract/draft", { body: { html: "no content" }, expect: 400 });
    await call(chopar, "POST", "/v1/layouts/contract/publish", { expect: 200 });
    await call(chopar, "POST", "/v1/layouts/contract/publish", { expect: 404 });
    await call(chopar, "GET", "/v1/layouts/contract/versions?limit=1", { expect: 200 });
    await call(chopar, "GET", "/v1/layouts/contract/versions/2", { expect: 404 });
    await call(chopar, "POST", "/v1/layouts/contract/versions/1/restore", { expect: 200 });
    await call(chopar, "GET", "/v1/layouts/contract/draft", { expect: 404 });
    await call(chopar, "PUT", "/v1/layouts/contract/draft", { body: { html: "<p>{{{content}}}</p>", text: null }, expect: 200 });
    await call(chopar, "DELETE", "/v1/layouts/contract/draft", { expect: 204 });
    await call(chopar, "PUT", "/v1/partials/contract.footer/draft", { body: { text: "Sent by {{project}}" }, expect: 200 });
    await call(chopar, "GET", "/v1/partials/contract.footer/draft", { expect: 200 });
    await call(chopar, "POST", "/v1/partials/contract.footer/publish", { expect: 200 });
    await call(chopar, "GET", "/v1/partials/contract.footer/versions", { expect: 200 });
    await call(chopar, "GET", "/v1/partials/contract.footer/versions/1", { expect: 200 });
    await call(chopar, "POST", "/v1/partials/contract.footer/versions/1/restore", { expect: 200 });
    await call(chopar, "DELETE", "/v1/partials/contract.footer/draft", { expect: 404 });
    await call(chopar, "DELETE", "/v1/templates/project.comment", { expect: 204 });
    await call(chopar, "DELETE", "/v1/templates/project.comment", { expect: 404 });

    await call(chopar, "GET", "/v1/sink/messages?limit=5", { expect: 200 });
    await call(chopar, "GET", "/v1/sink/messages?channel=fax", { expect: 400 });
    await call(chopar, "GET", "/v1/stats/deliveries?minutes=5", { expect: 200 });
    await call(chopar, "GET", "/v1/stats/overview", { expect: 200 });
    await call(chopar, "GET", "/v1/reports", { expect: 200 });
    await call(chopar, "POST", "/v1/telegram/webhook", { auth: null, body: { update_id: 1 }, expect: 503 });
    await call(chopar, "POST", "/v1/sms/eskiz/callback/wrong", { auth: null, body: { request_id: "1", status: "DELIVRD" }, expect: 404 });
    await call(chopar, "POST", "/v1/sms/playmobile/report/wrong", { auth: null, body: { messages: [{ "message-id": "chopar1a1", status: "Delivered" }] }, expect: 404 });
    await call(chopar, "POST", "/v1/sms/twilio/status", { auth: null, form: "MessageSid=SM1&MessageStatus=delivered", expect: 503 });
    await call(chopar, "GET", "/v1/suppressions?channel=email", { expect: 200 });
    await call(chopar, "GET", "/v1/suppressions?channel=telegram", { expect: 400 });
    await call(chopar, "DELETE", "/v1/suppressions/email/nobody%40example.uz", { expect: 404 });
    await call(chopar, "POST", "/v1/email/receipts/ses", { auth: null, body: { Type: "Notification" }, expect: 503 });
    await call(chopar, "POST", "/v1/email/receipts/sendgrid", { auth: null, body: [{ event: "delivered" }], expect: 503 });
    await call(chopar, "POST", "/v1/email/receipts/postmark", { auth: null, body: { RecordType: "Delivery", MessageID: "x" }, expect: 503 });
    await call(chopar, "POST", "/v1/email/receipts/mailgun", { auth: null, body: { signature: {} }, expect: 503 });
    await call(chopar, "GET", "/v1/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1", { auth: null, expect: 503 });
    await call(chopar, "POST", "/v1/whatsapp/webhook", { auth: null, body: { object: "whatsapp_business_account" }, expect: 503 });
    // Slack's app is not configured here: its routes say so (503).
    await call(chopar, "GET", "/v1/slack/install", { expect: 503 });
    await call(chopar, "GET", "/v1/slack/oauth/callback?code=a&state=b", { auth: null, expect: 503 });
    await call(chopar, "GET", "/v1/slack/workspaces", { expect: 503 });
    await call(chopar, "DELETE", "/v1/slack/workspaces/T0123ABCD", { expect: 503 });
    await call(chopar, "POST", "/v1/users/1/slack/connect", { body: { team_id: "T0123ABCD" }, expect: 503 });
    // A topic, its subscribers and a broadcast to it (titled by the
    // template above), then one to every user, read and canceled.
    await call(chopar, "PUT", "/v1/topics/project-7", { body: { name: "Project 7 watchers" }, expect: 200 });
    await call(chopar, "PUT", "/v1/topics/-project", { body: { name: "x" }, expect: 400 });
    await call(chopar, "PUT", "/v1/topics/project-7", { body: { name: "" }, expect: 400 });
    await call(chopar, "PUT", "/v1/topics/project-7/subscribers", { body: { user_ids: [1, 2] }, expect: 200 });
    await call(chopar, "PUT", "/v1/topics/project-7/subscribers", { body: { user_ids: [1, 999] }, expect: 404 });
    await call(chopar, "PUT", "/v1/topics/project-7/subscribers", { body: { user_ids: [] }, expect: 400 });
    await call(chopar, "PUT", "/v1/topics/project-8/subscribers", { body: { user_ids: [1] }, expect: 404 });
    await call(chopar, "GET", "/v1/topics/project-7/subscribers?limit=1", { expect: 200 });
    await call(chopar, "GET", "/v1/topics/project-7/subscribers?limit=0", { expect: 400 });
    await call(chopar, "GET", "/v1/topics/project-8/subscribers", { expect: 404 });
    const toTopic = { topic: "project-7", dedup_key: "release-2026-12",
                      notification: { type: "project.release", data: { project: "Alpha", version: "2.0" }, link: "/projects/7" } };
    await call(chopar, "POST", "/v1/broadcasts", { body: toTopic, expect: 202 });
    await call(chopar, "POST", "/v1/broadcasts", { body: toTopic, expect: 200 });
    await call(chopar, "POST", "/v1/broadcasts", { body: { ...toTopic, audience: "all" }, expect: 400 });
    await call(chopar, "POST", "/v1/broadcasts", { body: { ...toTopic, topic: "project-8", dedup_key: "x" }, expect: 404 });
    await call(chopar, "DELETE", "/v1/topics/project-7/subscribers", { body: { user_ids: [2] }, expect: 200 });
    await call(chopar, "DELETE", "/v1/topics/project-8/subscribers", { body: { user_ids: [2] }, expect: 404 });
    await call(chopar, "DELETE", "/v1/topics/project-7", { expect: 204 });
    await call(chopar, "DELETE", "/v1/topics/project-7", { expect: 404 });
    const broadcast = await call(chopar, "POST", "/v1/broadcasts", {
      body: { audience: "all", notification: { type: "maintenance", title: "Tonight", delay_seconds: 3600 } }, expect: 202,
    });
    const broadcastId = broadcast.body.id;
    await call(chopar, "GET", `/v1/broadcasts/${broadcastId}`, { expect: 200 });
    await call(chopar, "POST", `/v1/broadcasts/${broadcastId}/cancel`, { expect: 200 });
    await call(chopar, "GET", "/v1/broadcasts/999999", { expect: 404 });
    await call(chopar, "POST", "/v1/users/2/token/revoke", { expect: 200 });
    await call(chopar, "POST", "/v1/users/999/token/revoke", { expect: 404 });

    // Tenants, API keys and their scopes, the audit log (docs/tenants-and-access.md).
    await call(chopar, "PUT", "/v1/tenants/acme", { body: { name: "Acme", branding: { sender_name: "Acme", primary_color: "#0a7cff" } }, expect: 201 });
    await call(chopar, "PUT", "/v1/tenants/acme", { body: { name: "Acme Ltd", preferences: { sms: false } }, expect: 200 });
    await call(chopar, "PUT", "/v1/tenants/acme", { body: { name: "" }, expect: 400 });
    await call(chopar, "GET", "/v1/tenants/acme", { expect: 200 });
    await call(chopar, "GET", "/v1/tenants?limit=10", { expect: 200 });
    const reader = await call(chopar, "POST", "/v1/api-keys", { body: { name: "reader", scopes: ["read"] }, expect: 201 });
    await call(chopar, "POST", "/v1/api-keys", { body: { name: "x", scopes: ["root"] }, expect: 400 });
    await call(chopar, "POST", "/v1/api-keys", { body: { name: "x", scopes: ["read"], tenant: "nobody" }, expect: 404 });
    await call(chopar, "GET", "/v1/api-keys", { expect: 200 });
    await call(chopar, "GET", "/v1/users/1", { auth: `Bearer ${reader.body.key}`, expect: 200 });
    await call(chopar, "PUT", "/v1/users/1", { auth: `Bearer ${reader.body.key}`, body: { locale: "en" }, expect: 403 });
    await call(chopar, "GET", "/v1/api-keys", { auth: `Bearer ${reader.body.key}`, expect: 403 });
    await call(chopar, "GET", "/v1/audit?resource=tenant&limit=5", { expect: 200 });
    await call(chopar, "GET", "/v1/audit?limit=0", { expect: 400 });
    await call(chopar, "DELETE", `/v1/api-keys/${reader.body.id}`, { expect: 204 });
    await call(chopar, "DELETE", `/v1/api-keys/${reader.body.id}`, { expect: 404 });
    await call(chopar, "GET", "/v1/users/1", { auth: `Bearer ${reader.body.key}`, expect: 401 });
    // The bell's view of a tenant: only one its user belongs to.
    await call(chopar, "PUT", "/v1/users/1", { body: { tenants: ["acme"] }, expect: 200 });
    await call(chopar, "GET", "/v1/inbox/tenants/acme", { auth: bearer, expect: 200 });
    await call(chopar, "GET", "/v1/inbox/tenants/nobody", { auth: bearer, expect: 404 });
    await call(chopar, "PUT", "/v1/users/1", { body: { tenants: [] }, expect: 200 });
    await call(chopar, "DELETE", "/v1/tenants/acme", { expect: 204 });
    await call(chopar, "GET", "/v1/tenants/acme", { expect: 404 });

    // Console accounts (docs/api.md "Console accounts").
    await call(chopar, "GET", "/v1/console/sign-in", { auth: null, expect: 200 });
    await call(chopar, "POST", "/v1/console/sign-in", { auth: null, body: { api_key: "wrong" }, expect: 401 });
    const consoleAccount = await call(chopar, "POST", "/v1/console/accounts", { body: { email: "ops@example.uz", role: "viewer", password: "correct horse battery" }, expect: 201 });
    await call(chopar, "POST", "/v1/console/accounts", { body: { email: "OPS@example.uz", role: "admin", password: "correct horse battery" }, expect: 409 });
    await call(chopar, "POST", "/v1/console/accounts", { body: { email: "x@example.uz", role: "root", password: "correct horse battery" }, expect: 400 });
    await call(chopar, "PATCH", `/v1/console/accounts/${consoleAccount.body.id}`, { body: { role: "admin" }, expect: 200 });
    await call(chopar, "PATCH", "/v1/console/accounts/999999", { body: { role: "admin" }, expect: 404 });
    await call(chopar, "GET", "/v1/console/accounts", { expect: 200 });
    await call(chopar, "POST", "/v1/console/sign-in", { auth: null, body: { email: "ops@example.uz", password: "correct horse battery" }, expect: 200 });
    await call(chopar, "POST", "/v1/console/sign-in", { auth: null, body: { email: "ops@example.uz", password: "not the password" }, expect: 401 });
    await call(chopar, "GET", "/v1/console/session", { expect: 401 });
    const consoleSessions = await call(chopar, "GET", `/v1/console/sessions?account_id=${consoleAccount.body.id}`, { expect: 200 });
    await call(chopar, "POST", `/v1/console/sessions/${consoleSessions.body.items[0].id}/revoke`, { expect: 204 });
    await call(chopar, "POST", "/v1/console/sessions/999999/revoke", { expect: 404 });
    await call(chopar, "POST", "/v1/console/sign-out", { expect: 204 });
    await call(chopar, "DELETE", `/v1/console/accounts/${consoleAccount.body.id}`, { expect: 409 });
    await call(chopar, "GET", "/v1/outbox/stats", { expect: 200 });
    await call(chopar, "GET", "/v1/outbox/stats", { auth: "Bearer wrong", expect: 401 });
    for (const file of ["/", "/console/index.html", "/widget/chopar-bell.js", "/widget/chopar-client.js", "/widget/chopar-sw.js"]) {
      await call(chopar, "GET", file, { auth: null, expect: 200 });
    }

    await call(chopar, "GET", "/metrics", { auth: null, expect: 401 });
    const metrics = await call(chopar, "GET", "/metrics", { expect: 200 });
    assert.match(metrics.text, /^chopar_notifications_created_total /m);

    // Every operation of the description was called at least once.
    const called = new Set(checked.map((entry) => entry.split(" ").slice(0, 2).join(" ")));
    const missing = [];
    for (const [template, item] of Object.entries(spec.paths)) {
      for (const method of Object.keys(item).filter((key) => ["get", "put", "post", "delete"].includes(key))) {
        if (!called.has(`${method.toUpperCase()} ${template}`) && template !== "/v1/inbox/stream") missing.push(`${method} ${template}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
