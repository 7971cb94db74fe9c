// Every exchange the C++ black-box tests had with chopar, against
// docs/openapi.yaml. Their Api client (tests/blackbox_support.hpp) appends
// each request and answer as a JSON line to CHOPAR_TEST_EXCHANGE_LOG/*.jsonl;
// ctest runs this after them (the fixture openapi_exchanges, whose cleanup
// this is) and clears the folder before them.
//
// Each answer must be a status documented for its operation, its JSON body
// valid against that status's schema; each request body must be valid
// against the operation's requestBody schema, unless the answer is a 4xx
// (a bad request may be the test's purpose — its answer is still checked).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";

import { checkExchange, summarize } from "./lib/openapi.mjs";

const dir = process.env.CHOPAR_TEST_EXCHANGE_LOG;

describe("the black-box tests' exchanges", { skip: dir ? false : "CHOPAR_TEST_EXCHANGE_LOG is not set" }, () => {
  it("are all documented by docs/openapi.yaml", (t) => {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith(".jsonl")) : [];
    const violations = [];
    let exchanges = 0;
    for (const name of files) {
      const lines = fs.readFileSync(path.join(dir, name), "utf8").split("\n").filter(Boolean);
      for (const line of lines) {
        let recorded;
        try {
          recorded = JSON.parse(line);
        } catch (e) {
          violations.push({ operation: name, status: 0, where: line.slice(0, 200), problem: `not a JSON line: ${e.message}` });
          continue;
        }
        ++exchanges;
        const exchange = {
          method: recorded.method,
          path: recorded.path,
          status: recorded.status,
          requestContentType: recorded.request_content_type,
          requestBody: recorded.request_body,
          requestTruncated: recorded.request_truncated === true,
          responseContentType: recorded.response_content_type,
          responseBody: recorded.response_body,
          responseTruncated: recorded.response_truncated === true,
        };
        for (const problem of checkExchange(exchange)) violations.push({ ...problem, test: recorded.test });
      }
    }
    console.log(`${exchanges} exchanges in ${files.length} files, ${violations.length} violations`);
    // Run alone (ctest -R), no black-box test recorded anything: say so
    // rather than pass on nothing.
    if (exchanges === 0 && violations.length === 0) return t.skip("no black-box test ran before this one");
    assert.ok(violations.length === 0, `${violations.length} exchanges break docs/openapi.yaml:\n${summarize(violations)}`);
  });
});
