// chopar's Web Push service worker: shows each push chopar sends and opens
// its link on click. The payload is {"id", "title", "body", "url", "type"}
// (docs/api.md "Console support"). A page on another origin than chopar
// serves a one-line worker of its own that loads this one:
//   importScripts("https://chopar.example/widget/chopar-sw.js");

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let payload = {};
  try {
    payload = event.data ? event.data.json() : {};
  } catch {
    payload = { title: event.data ? event.data.text() : "" };
  }
  const title = payload.title || "chopar";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: payload.body || "",
      tag: payload.id ? `chopar-${payload.id}` : undefined,
      data: { url: payload.url || null, id: payload.id || null },
    }),
  );
});

// Only http(s) links are opened: a payload can never make the worker run a
// javascript: or data: URL.
function safeUrl(url) {
  try {
    const parsed = new URL(url, self.location.origin);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = safeUrl(event.notification.data && event.notification.data.url);
  if (!url) return;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      for (const client of windows) {
        if (client.url === url && "focus" in client) return client.focus();
      }
      return self.clients.openWindow(url);
    }),
  );
});
