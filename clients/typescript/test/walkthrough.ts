// The walk-through of the top-level README.md, through the typed client:
// users and their addresses, a notification (and its dedup), a batch, the
// bell read and marked read with the API key and then with a subscriber
// token, the deliveries the sink channels sent, a schedule, a delayed
// notification canceled, a template in two languages, a topic and its
// broadcast, the bell's own preferences, and errors as ChoparError. Run
// against a real chopar by walkthrough.test.mjs; `tsc` checks that every
// call here matches docs/openapi.yaml.
import assert from "node:assert/strict";

import { ChoparError, createChoparClient, type Schema } from "../src/index.js";

export async function walkThrough(baseUrl: string, apiKey: string): Promise<void> {
  const chopar = createChoparClient({ baseUrl, apiKey });
  const user = (id: number) => ({ params: { path: { id } } });

  // The four users of the source document.
  // Aziz: email and Telegram enabled, Telegram connected.
  const aziz = await chopar.PUT("/v1/users/{id}", {
    ...user(1),
    body: { email: "aziz@example.uz", timezone: "Asia/Tashkent", locale: "uz", preferences: { email: true, telegram: true } },
  });
  assert.equal(aziz.timezone, "Asia/Tashkent");
  await chopar.PUT("/v1/users/{id}/telegram", { ...user(1), body: { chat_id: 900000001 } });
  // Dilnoza: email disabled, no Telegram.
  await chopar.PUT("/v1/users/{id}", { ...user(2), body: { email: "dilnoza@example.uz", preferences: { email: false } } });
  // Sardor: nothing set, so the defaults apply.
  await chopar.PUT("/v1/users/{id}", { ...user(3), body: { email: "sardor@example.uz" } });
  // Gulnora: email on, Telegram off, a Web Push subscription.
  await chopar.PUT("/v1/users/{id}", {
    ...user(4),
    body: { email: "gulnora@example.uz", preferences: { email: true, telegram: false } },
  });
  const subscription = await chopar.POST("/v1/users/{id}/push-subscriptions", {
    ...user(4),
    body: {
      endpoint: "https://push.example.com/send/abc",
      keys: {
        p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        auth: "BTBZMqHH6r4Tts7J_aSIgg",
      },
    },
  });
  assert.ok(subscription.id > 0);

  // Notify Aziz: an in-app row plus email and Telegram deliveries.
  const due: Schema<"NotificationInput"> = {
    user_id: 1,
    type: "task.due",
    title: "Muddat yaqin",
    body: "Non olish — 18:00",
    link: "/tasks/1",
    dedup_key: "task:1:due:2026-10-28",
  };
  const created = await chopar.POST("/v1/notifications", { body: due });
  assert.deepEqual([created.created, created.channels], [true, ["email", "telegram"]]);
  // The same dedup key again creates nothing.
  const again = await chopar.POST("/v1/notifications", { body: due });
  assert.deepEqual([again.id, again.created, again.channels], [created.id, false, []]);

  // Gulnora gets email and push; Dilnoza only the bell.
  const batch = await chopar.POST("/v1/notifications/batch", {
    body: {
      notifications: [
        { user_id: 4, type: "task.due", title: "Hisobot tayyor" },
        { user_id: 2, type: "task.due", title: "Hisobot tayyor" },
      ],
    },
  });
  assert.deepEqual(
    batch.results.map((result) => ("channels" in result ? [...result.channels].sort() : result)),
    [["email", "push"], []],
  );

  // Aziz's bell: unread count and list, then mark everything read.
  assert.equal((await chopar.GET("/v1/users/{id}/notifications/unread-count", user(1))).count, 1);
  const page = await chopar.GET("/v1/users/{id}/notifications", { params: { path: { id: 1 }, query: { limit: 20 } } });
  assert.deepEqual(
    page.items.map((item) => [item.id, item.title, item.read_at]),
    [[created.id, "Muddat yaqin", null]],
  );
  assert.equal(page.next_cursor, null);
  assert.equal((await chopar.POST("/v1/users/{id}/notifications/read", { ...user(1), body: { all: true } })).updated, 1);

  // What was delivered: the sink channels mark the deliveries sent within a moment.
  let deliveries: Schema<"Delivery">[] = [];
  for (let attempt = 0; attempt < 100; ++attempt) {
    deliveries = (await chopar.GET("/v1/deliveries", { params: { query: { user_id: 1, limit: 10 } } })).items;
    if (deliveries.length === 2 && deliveries.every((delivery) => delivery.status === "sent")) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(deliveries.map((delivery) => [delivery.channel, delivery.status]).sort(), [
    ["email", "sent"],
    ["telegram", "sent"],
  ]);
  const notification = await chopar.GET("/v1/notifications/{id}", { params: { path: { id: created.id } } });
  assert.equal(notification.deliveries.length, 2);

  // A daily reminder at 18:05 in Aziz's own zone (Asia/Tashkent, UTC+5).
  const schedule = await chopar.PUT("/v1/schedules/{key}", {
    params: { path: { key: "pill-17" } },
    body: {
      user_id: 1,
      cron: "5 18 * * *",
      notification: { type: "pill.reminder", title: "Sitramon", body: "18:00 dori vaqti", link: "/pills/17" },
    },
  });
  assert.equal(schedule.key, "pill-17");
  assert.match(String(schedule.next_fire_at), /T13:05:00Z$/);
  const preview = await chopar.POST("/v1/schedules/preview", {
    body: { cron: "30 2 * * *", timezone: "Europe/Berlin", after: "2027-03-27T00:00:00Z", count: 3 },
  });
  assert.deepEqual(preview.fire_at, ["2027-03-27T01:30:00Z", "2027-03-28T01:00:00Z", "2027-03-29T00:30:00Z"]);

  // A reminder for later, canceled when the task is done first.
  await chopar.POST("/v1/notifications", {
    body: {
      user_id: 1,
      type: "task.reminder",
      title: "Pay the bill",
      delay_seconds: 3600,
      cancellation_key: "task:7:reminder",
    },
  });
  const { canceled } = await chopar.POST("/v1/notifications/cancel", { body: { cancellation_key: "task:7:reminder" } });
  assert.equal(canceled, 1);

  // A browser reads its own inbox with a subscriber token.
  const { token } = await chopar.GET("/v1/users/{id}/token", user(1));
  await chopar.POST("/v1/notifications", { body: { user_id: 1, type: "task.due", title: "Yana bir" } });
  const inbox = createChoparClient({ baseUrl, token });
  assert.equal((await inbox.GET("/v1/inbox/unread-count")).count, 1);
  const unread = await inbox.GET("/v1/inbox/notifications", { params: { query: { unread: "true" } } });
  assert.deepEqual(
    unread.items.map((item) => item.title),
    ["Yana bir"],
  );
  const ids = unread.items.map((item) => item.id);
  assert.equal((await inbox.POST("/v1/inbox/read", { body: { ids } })).updated, 1);
  assert.equal((await inbox.GET("/v1/inbox/unread-count")).count, 0);

  // The bell's own settings: Telegram off for one type.
  await inbox.PUT("/v1/inbox/preferences", { body: { types: { "task.due": { telegram: false } } } });
  const preferences = await inbox.GET("/v1/inbox/preferences");
  assert.deepEqual(preferences.types, { "task.due": { telegram: false } });

  // A template per language: Aziz (uz) gets the Uzbek title.
  const template = await chopar.PUT("/v1/templates/{type}", {
    params: { path: { type: "report.ready" } },
    body: {
      category: "reports",
      default_locale: "en",
      locales: {
        en: { title: "Report {{name}} is ready" },
        uz: { title: "{{name}} hisoboti tayyor" },
      },
    },
  });
  assert.equal(template.type, "report.ready");
  const rendered = await chopar.POST("/v1/templates/preview", {
    body: { type: "report.ready", locale: "uz", data: { name: "Oylik" } },
  });
  assert.equal(rendered.title, "Oylik hisoboti tayyor");
  await chopar.POST("/v1/notifications", {
    body: { user_id: 1, type: "report.ready", data: { name: "Haftalik" }, channels: [] },
  });
  const latest = await chopar.GET("/v1/users/{id}/notifications", { params: { path: { id: 1 }, query: { limit: 1 } } });
  assert.equal(latest.items[0]?.title, "Haftalik hisoboti tayyor");

  // A topic of two users, and one broadcast to it.
  await chopar.PUT("/v1/topics/{key}", { params: { path: { key: "project-7" } }, body: { name: "Project 7 watchers" } });
  const added = await chopar.PUT("/v1/topics/{key}/subscribers", {
    params: { path: { key: "project-7" } },
    body: { user_ids: [2, 3] },
  });
  assert.equal(added.added, 2);
  const broadcast = await chopar.POST("/v1/broadcasts", {
    body: { topic: "project-7", notification: { type: "project.release", title: "2.0 is out", channels: [] } },
  });
  let fannedOut = broadcast;
  for (let attempt = 0; attempt < 100 && fannedOut.status === "running"; ++attempt) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    fannedOut = await chopar.GET("/v1/broadcasts/{id}", { params: { path: { id: broadcast.id } } });
  }
  assert.deepEqual([fannedOut.status, fannedOut.created], ["done", 2]);

  // Errors: chopar's error body, typed.
  await assert.rejects(
    chopar.POST("/v1/notifications", { body: { user_id: 99, type: "task.due", title: "Nobody" } }),
    (error: unknown) => {
      assert.ok(error instanceof ChoparError);
      assert.equal(error.status, 404);
      assert.equal(error.code, "user_not_found");
      assert.equal(error.field, "user_id");
      assert.match(error.requestId ?? "", /^[0-9a-f]{32}$/);
      return true;
    },
  );
  await assert.rejects(
    chopar.POST("/v1/notifications", { body: { user_id: 1, type: "task.due", title: "" } }),
    { name: "ChoparError", status: 400, code: "invalid_field", field: "title" },
  );
  await assert.rejects(createChoparClient({ baseUrl, token: "v2.1.0.1.forged" }).GET("/v1/inbox/unread-count"), {
    status: 401,
    code: "unauthorized",
  });
  await assert.rejects(inbox.GET("/v1/users/{id}", user(1)), { status: 401, code: "unauthorized" });
}
