// The typed client against a real chopar: the package compiled by tsc, the
// built binary (CHOPAR_TEST_BINARY) started by tests/browser/lib/chopar.mjs
// on a database of the throwaway cluster of scripts/with-test-pg, and
// walkthrough.ts's walk through the README.
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";

import { API_KEY, Chopar, skipReason } from "../../../tests/browser/lib/chopar.mjs";
import { compile } from "./compile.mjs";

describe("the typed client", { skip: skipReason() || false }, () => {
  let chopar;
  let outDir;

  before(async () => {
    outDir = compile();
    chopar = new Chopar({ name: "ts_client" });
    await chopar.start();
  });
  after(async () => {
    if (chopar) await chopar.dispose();
    if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
  });

  it("walks the README through", async () => {
    const { walkThrough } = await import(pathToFileURL(path.join(outDir, "test", "walkthrough.js")).href);
    await walkThrough(chopar.url, API_KEY);
  });
});
