// The router's table against docs/openapi.yaml, both ways: every route the
// API process registers (`chopar routes`, from the same registration the
// server runs) must be an operation of the description, and every operation
// of the description a registered route. The failure lists the differences.
//
// Web assets: the files of web/ under a prefix named by the description's
// `x-chopar-web-assets` (the console's own scripts and styles, not an
// interface) need no operation each; a route there is accepted only when it
// is a GET of a file that exists in the folder the extension names. Anything
// else the binary serves, web assets outside those prefixes included, must be
// documented.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";

import { REPO_ROOT, documentedOperations, spec } from "./lib/openapi.mjs";

const binary = process.env.CHOPAR_TEST_BINARY;

// "GET /console/app.js" → whether it is an undocumented web asset the
// description's extension accepts.
function isWebAsset(route) {
  const [method, pathname] = route.split(" ");
  if (method !== "GET") return false;
  return (spec["x-chopar-web-assets"] ?? []).some(({ prefix, folder }) => {
    if (!pathname.startsWith(prefix)) return false;
    const root = path.resolve(REPO_ROOT, folder);
    const file = path.resolve(root, pathname.slice(prefix.length));
    return file.startsWith(root + path.sep) && fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  });
}

describe("the routes", { skip: binary ? false : "CHOPAR_TEST_BINARY is not set" }, () => {
  it("are the operations of docs/openapi.yaml", () => {
    const run = spawnSync(binary, ["routes"], { encoding: "utf8", env: { PATH: process.env.PATH } });
    assert.equal(run.status, 0, `chopar routes failed: ${run.stderr}`);
    const routes = run.stdout.split("\n").filter(Boolean);
    assert.ok(routes.includes("GET /healthz"), `chopar routes printed no GET /healthz:\n${run.stdout}`);
    const documented = new Set(documentedOperations());
    const registered = new Set(routes);

    const undocumented = routes.filter((route) => !documented.has(route) && !isWebAsset(route));
    const unserved = [...documented].filter((operation) => !registered.has(operation));
    const report = [];
    if (undocumented.length) report.push(`registered, not in docs/openapi.yaml (${undocumented.length}):\n  ${undocumented.join("\n  ")}`);
    if (unserved.length) report.push(`in docs/openapi.yaml, not registered (${unserved.length}):\n  ${unserved.join("\n  ")}`);
    const assets = routes.filter((route) => !documented.has(route) && isWebAsset(route));
    console.log(`${routes.length} routes, ${documented.size} documented operations, ${assets.length} web assets by x-chopar-web-assets`);
    assert.ok(report.length === 0, report.join("\n"));
  });

  // Who may call each operation, as the description says it
  // (x-required-scope, x-tenancy), is what the server enforces
  // (`chopar routes --access`, from src/http/route_access.cpp).
  it("state the scope and tenancy the server requires", () => {
    const run = spawnSync(binary, ["routes", "--access"], { encoding: "utf8", env: { PATH: process.env.PATH } });
    assert.equal(run.status, 0, `chopar routes --access failed: ${run.stderr}`);
    const wrong = [];
    for (const line of run.stdout.split("\n").filter(Boolean)) {
      const [method, pathname, scope, tenancy] = line.split(" ");
      const operation = spec.paths[pathname]?.[method.toLowerCase()];
      if (!operation) continue;  // the test above reports it
      const documented = operation["x-required-scope"];
      if (scope === "public" || scope === "subscriber") {
        if (documented !== undefined) wrong.push(`${method} ${pathname}: x-required-scope ${documented}, but it takes no API key`);
        continue;
      }
      if (documented !== scope || operation["x-tenancy"] !== tenancy) {
        wrong.push(`${method} ${pathname}: documented ${documented} ${operation["x-tenancy"]}, served ${scope} ${tenancy}`);
      }
      if (!operation.responses?.["403"]) wrong.push(`${method} ${pathname}: no 403 response`);
    }
    assert.deepEqual(wrong, []);
  });

  // The table of docs/tenants-and-access.md is the same
  // (scripts/update-route-access-table rewrites it).
  it("are listed with their scope in docs/tenants-and-access.md", () => {
    const run = spawnSync(binary, ["routes", "--access"], { encoding: "utf8", env: { PATH: process.env.PATH } });
    assert.equal(run.status, 0, `chopar routes --access failed: ${run.stderr}`);
    const served = run.stdout.split("\n").filter(Boolean)
      .map((line) => line.split(" "))
      .filter(([, , scope]) => scope !== "public" && scope !== "subscriber")
      .map(([method, pathname, scope, tenancy]) => `${method} ${pathname} ${scope} ${tenancy}`);
    const page = fs.readFileSync(path.join(REPO_ROOT, "docs", "tenants-and-access.md"), "utf8");
    const listed = [...page.matchAll(/^\| `([A-Z]+ [^`]+)` \| `([a-z]+)` \| ([a-z]+) \|$/gm)]
      .map(([, route, scope, tenancy]) => `${route} ${scope} ${tenancy}`);
    assert.deepEqual(listed.sort(), served.sort(), "run scripts/update-route-access-table");
  });
});
