// A line diff by longest common subsequence, for a template's versions.

// The lines of `a` and `b` as the edits that turn `a` into `b`: a list of
// {op, text} with op " " (in both), "-" (only in a) or "+" (only in b), in
// order. The common head and tail are matched first, so two versions that
// differ in a few places cost little; what is left is compared line by line
// (time and memory n × m, bounded by `maxCells`, above which the middle is
// shown as all removed, then all added).
export function lineDiff(a, b, { maxCells = 4_000_000 } = {}) {
  const left = a.split("\n");
  const right = b.split("\n");
  let head = 0;
  while (head < left.length && head < right.length && left[head] === right[head]) head++;
  let tail = 0;
  while (tail < left.length - head && tail < right.length - head && left[left.length - 1 - tail] === right[right.length - 1 - tail]) tail++;
  const x = left.slice(head, left.length - tail);
  const y = right.slice(head, right.length - tail);
  const edits = left.slice(0, head).map((text) => ({ op: " ", text }));
  if (x.length * y.length > maxCells) {
    edits.push(...x.map((text) => ({ op: "-", text })), ...y.map((text) => ({ op: "+", text })));
  } else {
    edits.push(...middle(x, y));
  }
  edits.push(...left.slice(left.length - tail).map((text) => ({ op: " ", text })));
  return edits;
}

// LCS table from the ends: lengths[i][j] is the LCS of x[i..] and y[j..],
// one flat row-major array of (n + 1) × (m + 1) cells.
function middle(x, y) {
  const n = x.length;
  const m = y.length;
  const width = m + 1;
  const lengths = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * width + j] =
        x[i] === y[j] ? lengths[(i + 1) * width + j + 1] + 1 : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
    }
  }
  const edits = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      edits.push({ op: " ", text: x[i] });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) {
      edits.push({ op: "-", text: x[i++] });
    } else {
      edits.push({ op: "+", text: y[j++] });
    }
  }
  while (i < n) edits.push({ op: "-", text: x[i++] });
  while (j < m) edits.push({ op: "+", text: y[j++] });
  return edits;
}

// `value` as JSON with every object's keys sorted and two-space indents:
// the same document always gives the same lines, whatever order it was
// written in (what chopar templates export writes, too).
export function stableJson(value) {
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}
