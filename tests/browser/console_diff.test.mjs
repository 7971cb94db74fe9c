// The console's line diff (web/console/diff.js), in Node: what it shows and
// that it is minimal (a longest common subsequence of lines).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { lineDiff, stableJson } from "../../web/console/diff.js";

const show = (edits) => edits.map((e) => e.op + e.text);
// Applying the edits to `a` gives `b`; the unchanged lines are common to both.
const sides = (edits) => ({
  a: edits.filter((e) => e.op !== "+").map((e) => e.text).join("\n"),
  b: edits.filter((e) => e.op !== "-").map((e) => e.text).join("\n"),
});

function lcsLength(x, y) {
  const row = new Array(y.length + 1).fill(0);
  for (const line of x) {
    let diagonal = 0;
    for (let j = 1; j <= y.length; j++) {
      const above = row[j];
      row[j] = line === y[j - 1] ? diagonal + 1 : Math.max(row[j], row[j - 1]);
      diagonal = above;
    }
  }
  return row[y.length];
}

describe("lineDiff", () => {
  it("marks what was removed and added between common lines", () => {
    assert.deepEqual(show(lineDiff("a\nb\nc\nd", "a\nc\nx\nd")), [" a", "-b", " c", "+x", " d"]);
    assert.deepEqual(show(lineDiff("same\ntext", "same\ntext")), [" same", " text"]);
    assert.deepEqual(show(lineDiff("", "x")), ["-", "+x"]);
  });

  it("is minimal and its two sides are the two texts", () => {
    let seed = 7;
    const random = (n) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const text = () => Array.from({ length: random(12) }, () => "abcd"[random(4)]).join("\n");
      const a = text();
      const b = text();
      const edits = lineDiff(a, b);
      assert.deepEqual(sides(edits), { a, b });
      const kept = edits.filter((e) => e.op === " ").length;
      assert.equal(kept, lcsLength(a.split("\n"), b.split("\n")), `${JSON.stringify(a)} → ${JSON.stringify(b)}`);
    }
  });

  it("past its bound shows the differing middle as removed then added", () => {
    const edits = lineDiff("head\np\nq\ntail", "head\nq\np\ntail", { maxCells: 1 });
    assert.deepEqual(show(edits), [" head", "-p", "-q", "+q", "+p", " tail"]);
  });
});

describe("stableJson", () => {
  it("gives the same lines whatever order the members were written in", () => {
    assert.equal(stableJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } }), stableJson({ a: { c: null, d: [{ y: 2, z: 1 }] }, b: 1 }));
    assert.equal(stableJson({ b: 1, a: 2 }), '{\n  "a": 2,\n  "b": 1\n}');
  });
});
