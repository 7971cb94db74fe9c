// Read-your-writes from a browser (docs/api.md "Read-your-writes"): with
// [database] read_urls set, a write's response carries its WAL position in
// Chopar-LSN, CORS lets a page of another origin read it, and
// chopar-client.js sends the largest one back on its next calls. The
// "standby" here is chopar's own database (a read_url that is a primary has
// every commit at once): what is tested is the header's round trip through
// a real browser; reads waiting on a lagging standby are tested in
// tests/read_standbys_pgtest.cpp against a streaming replica.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { chromiumPath, launch } from "./lib/browser.mjs";
import { Chopar, skipReason } from "./lib/chopar.mjs";
import { startHostPage } from "./lib/host.mjs";

const skip = skipReason() || (chromiumPath() ? false : "chromium is not installed");
const USER = 501;
const LSN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/;

// "16/B374D848" → a BigInt that orders as the log does.
const position = (lsn) => {
  const [high, low] = lsn.split("/");
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
};

describe("Chopar-LSN in the browser", { skip }, () => {
  let chopar, host, browser, page;

  before(async () => {
    chopar = new Chopar({ name: "lsn" });
    await chopar.start({ CHOPAR_DATABASE_READ_URLS: chopar.databaseUrl });
    await chopar.call("PUT", `/v1/users/${USER}`, { locale: "en" });
    host = await startHostPage(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Own inbox</title>
<script type="module" src="${chopar.url}/widget/chopar-client.js"></script></head><body><h1>Own inbox</h1></body></html>`,
    );
    browser = await launch({ viewport: { width: 800, height: 600 } });
    page = await browser.context.newPage();
  });

  after(async () => {
    await browser?.close();
    await host?.close();
    await chopar?.dispose();
  });

  it("a write answers with its position, readable across origins, and the client's next reads carry the largest", async () => {
    const first = await chopar.notify(USER, { title: "One" });
    const second = await chopar.notify(USER, { title: "Two" });
    await page.goto(`${host.url}/client`);
    await page.waitForFunction(() => typeof window.ChoparClient === "function");
    await page.evaluate(([baseUrl, token]) => {
      window.client = new window.ChoparClient({ baseUrl, token });
    }, [chopar.url, await chopar.token(USER)]);

    // What each of the page's calls to chopar sent and got: its Chopar-LSN.
    const calls = [];
    page.on("requestfinished", async (request) => {
      if (!request.url().startsWith(chopar.url) || request.method() === "OPTIONS") return;
      const response = await request.response();
      calls.push({
        method: request.method(),
        path: new URL(request.url()).pathname,
        sent: (await request.allHeaders())["chopar-lsn"] ?? null,
        got: response ? ((await response.allHeaders())["chopar-lsn"] ?? null) : null,
      });
    });
    const settled = async (count) => {
      const deadline = Date.now() + 5000;
      while (calls.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(calls.length, count, JSON.stringify(calls));
    };

    // A read before any write carries nothing, and answers with nothing.
    await page.evaluate(() => window.client.list());
    await settled(1);
    assert.deepEqual(calls[0], { method: "GET", path: "/v1/inbox/notifications", sent: null, got: null });

    // A write: its position, read by the page (CORS exposes the header).
    const read = await page.evaluate(async (id) => {
      const response = await window.client._fetch("POST", "/v1/inbox/read", { ids: [id] });
      return { status: response.status, lsn: response.headers.get("Chopar-LSN") };
    }, first.id);
    assert.equal(read.status, 200);
    assert.match(read.lsn ?? "", LSN, "the page reads Chopar-LSN of a cross-origin response");
    await settled(2);

    // The next read carries it, and sees the write.
    const unread = await page.evaluate(() => window.client.count({ count: "unread" }));
    await settled(3);
    assert.equal(calls[2].sent, read.lsn);
    assert.equal(unread, 1);

    // A later write moves it on; every read after carries the largest.
    await page.evaluate((id) => window.client.markRead([id]), second.id);
    await settled(4);
    assert.match(calls[3].got ?? "", LSN);
    assert.ok(position(calls[3].got) >= position(read.lsn), `${calls[3].got} before ${read.lsn}`);
    await page.evaluate(() => window.client.list());
    await settled(5);
    assert.equal(calls[4].sent, calls[3].got);
    assert.equal(calls[4].got, null, "a read commits nothing");
  });
});
