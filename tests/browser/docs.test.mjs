// The API reference at /docs in a real browser: RapiDoc, served by chopar
// itself, renders the server's /openapi.yaml; nothing is asked of any host
// but chopar's, no error reaches the console, and the console links to it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { chromiumPath, launch, screenshotPath } from "./lib/browser.mjs";
import { API_KEY, Chopar, skipReason } from "./lib/chopar.mjs";

const skip = skipReason() || (chromiumPath() ? false : "chromium is not installed");

// The first operation's summary in the document as served: the page renders
// whatever the document holds, so the test reads what to look for from it.
function firstSummary(yaml) {
  const paths = yaml.slice(yaml.indexOf("\npaths:"));
  const match = paths.match(/^ {6}summary: (.+)$/m);
  assert.ok(match, "an operation with a summary in /openapi.yaml");
  return match[1].replace(/^["']|["']$/g, "");
}

describe("API reference", { skip }, () => {
  let chopar, browser, page;
  const requests = [];
  const elsewhere = [];
  const errors = [];

  before(async () => {
    chopar = new Chopar({ name: "docs" });
    await chopar.start();
    browser = await launch({ viewport: { width: 1280, height: 860 } });
    // Every request of the context (pages and workers): chopar's are let
    // through; any other is recorded and never sent.
    await browser.context.route(
      () => true,
      (route) => {
        const url = new URL(route.request().url());
        requests.push(url);
        if (url.protocol === "data:" || url.protocol === "blob:" || url.host === new URL(chopar.url).host) return route.continue();
        elsewhere.push(url.href);
        return route.abort();
      },
    );
    page = await browser.context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(String(error)));
  });

  after(async () => {
    await browser?.close();
    await chopar?.dispose();
  });

  it("serves /docs and its bundle without credentials, with their types and a strict policy", async () => {
    const html = await fetch(`${chopar.url}/docs`);
    assert.equal(html.status, 200);
    assert.equal(html.headers.get("content-type"), "text/html; charset=utf-8");
    const policy = html.headers.get("content-security-policy");
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /script-src 'self'(;|$)/);
    assert.match(policy, /connect-src 'self'(;|$)/);
    assert.equal(html.headers.get("x-frame-options"), "DENY");
    const bundle = await fetch(`${chopar.url}/docs/rapidoc-min.js`);
    assert.equal(bundle.status, 200);
    assert.equal(bundle.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.match(await bundle.text(), /^\/\*! RapiDoc /);
  });

  it("renders the document from /openapi.yaml, reaching no other host and logging no error", async () => {
    const yaml = await (await fetch(`${chopar.url}/openapi.yaml`)).text();
    const summary = firstSummary(yaml);
    const title = yaml.match(/^info:\n {2}title: (.+)$/m)[1];

    await page.goto(`${chopar.url}/docs`);
    // RapiDoc renders in its shadow root; Playwright's locators reach into it.
    await page.getByText(summary, { exact: true }).first().waitFor({ timeout: 20000 });
    await page.getByText(title, { exact: true }).first().waitFor();
    assert.equal(await page.title(), "chopar API reference");
    // Give late requests (fonts, images) a moment to show up.
    await page.waitForLoadState("networkidle");

    assert.deepEqual(elsewhere, [], "no request for another host");
    const paths = requests.map((url) => url.pathname);
    assert.ok(paths.includes("/docs/rapidoc-min.js"), `requests: ${paths}`);
    assert.ok(paths.includes("/openapi.yaml"), `requests: ${paths}`);
    assert.deepEqual(errors, [], "no console errors");
  });

  it("shows an operation's request and responses", async () => {
    const yaml = await (await fetch(`${chopar.url}/openapi.yaml`)).text();
    const create = yaml.match(/^ {2}\/v1\/notifications:\n {4}post:\n(?: {6}.*\n)*? {6}summary: (.+)$/m);
    assert.ok(create, "POST /v1/notifications in /openapi.yaml");
    await page.locator("rapi-doc").evaluate((doc) => doc.scrollToPath("post-/v1/notifications"));
    const heading = page.getByRole("heading", { name: create[1], exact: true });
    await heading.waitFor();
    assert.ok(await heading.isVisible());
    // The page scrolls smoothly to the operation.
    await page.waitForTimeout(500);
    assert.deepEqual(elsewhere, [], "no request for another host");
    assert.deepEqual(errors, [], "no console errors");
    await page.screenshot({ path: screenshotPath("api-reference") });
  });

  it("is linked from the console's navigation", async () => {
    await page.goto(`${chopar.url}/`);
    await page.getByLabel("API key").fill(API_KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "API reference" }).click();
    await page.waitForURL(`${chopar.url}/docs`);
    await page.locator("rapi-doc").getByRole("heading").first().waitFor();
    assert.deepEqual(elsewhere, [], "no request for another host");
  });
});
