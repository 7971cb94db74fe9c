// The hand-written part of the client (src/index.ts) against a fake fetch:
// what it sends, and the ChoparError of each kind of refusal.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";

import { compile } from "./compile.mjs";

// A fetch that records each request and answers `status` with `body`.
function fakeFetch(status, body, headers = {}) {
  const requests = [];
  const fetch = async (request) => {
    requests.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
    const text = typeof body === "string" ? body : JSON.stringify(body);
    return new Response(status === 204 ? null : text, { status, headers: { "Content-Type": "application/json", ...headers } });
  };
  return { fetch, requests };
}

describe("createChoparClient", () => {
  let outDir;
  let client;

  before(async () => {
    outDir = compile();
    client = await import(pathToFileURL(path.join(outDir, "src", "index.js")).href);
  });
  after(() => fs.rmSync(outDir, { recursive: true, force: true }));

  it("sends the API key, the path parameters, the query and a JSON body", async () => {
    const { fetch, requests } = fakeFetch(200, { updated: 2 });
    const chopar = client.createChoparClient({ baseUrl: "http://chopar.test", apiKey: "k1", fetch });
    assert.deepEqual(
      await chopar.POST("/v1/users/{id}/notifications/read", { params: { path: { id: 42 } }, body: { all: true } }),
      { updated: 2 },
    );
    await chopar.GET("/v1/users/{id}/notifications", { params: { path: { id: 42 }, query: { limit: 5, unread: "true" } } });
    assert.equal(requests[0].method, "POST");
    assert.equal(requests[0].url, "http://chopar.test/v1/users/42/notifications/read");
    assert.equal(requests[0].headers.get("authorization"), "Bearer k1");
    assert.equal(requests[0].headers.get("content-type"), "application/json");
    assert.deepEqual(JSON.parse(requests[0].body), { all: true });
    assert.equal(requests[1].url, "http://chopar.test/v1/users/42/notifications?limit=5&unread=true");
  });

  it("sends a subscriber token, or no credentials at all", async () => {
    const { fetch, requests } = fakeFetch(200, { count: 0 });
    await client.createChoparClient({ baseUrl: "http://chopar.test", token: "v2.1.0.9.s", fetch }).GET("/v1/inbox/unread-count");
    await client.createChoparClient({ baseUrl: "http://chopar.test", fetch }).GET("/v1/channels");
    assert.equal(requests[0].headers.get("authorization"), "Bearer v2.1.0.9.s");
    assert.equal(requests[1].headers.get("authorization"), null);
  });

  it("resolves a 204 to undefined", async () => {
    const { fetch } = fakeFetch(204, "");
    const chopar = client.createChoparClient({ baseUrl: "http://chopar.test", apiKey: "k", fetch });
    assert.equal(await chopar.DELETE("/v1/schedules/{key}", { params: { path: { key: "a" } } }), undefined);
  });

  it("rejects with chopar's error body, Retry-After and X-Request-Id", async () => {
    const body = { error: { code: "unavailable", message: "the database is busy", field: null } };
    const { fetch } = fakeFetch(503, body, { "Retry-After": "5", "X-Request-Id": "req-1" });
    const chopar = client.createChoparClient({ baseUrl: "http://chopar.test", apiKey: "k", fetch });
    await assert.rejects(chopar.GET("/v1/users/{id}", { params: { path: { id: 1 } } }), (error) => {
      assert.ok(error instanceof client.ChoparError);
      assert.ok(error instanceof Error);
      assert.equal(error.name, "ChoparError");
      assert.equal(error.message, "GET /v1/users/{id} → 503 unavailable: the database is busy");
      assert.deepEqual(
        [error.status, error.code, error.field, error.retryAfter, error.requestId, error.body],
        [503, "unavailable", null, 5, "req-1", body.error],
      );
      return true;
    });
  });

  it("rejects with a null code when the body is not chopar's (a proxy's page)", async () => {
    const { fetch } = fakeFetch(502, "<html>Bad Gateway</html>");
    const chopar = client.createChoparClient({ baseUrl: "http://chopar.test", apiKey: "k", fetch });
    await assert.rejects(chopar.GET("/healthz"), {
      name: "ChoparError",
      status: 502,
      code: null,
      body: null,
      retryAfter: null,
      message: "GET /healthz → 502 <html>Bad Gateway</html>",
    });
  });
});
