// A property-based pass over the API: for CHOPAR_FUZZ_SECONDS (default 40)
// it generates requests from docs/openapi.yaml — valid ones from the
// operations' schemas (types, enums, lengths, ranges, required members,
// patterns) and invalid ones (a wrong type, a required member missing, a
// number out of range, an unknown member, an oversized string, garbage JSON,
// a wrong credential, a bad path or query parameter) — sends them to a
// chopar started on its own database (scripts/with-test-pg) and fails on any
// 5xx, any request left unanswered, and any answer whose status or body the
// description does not document for the operation.
//
// The seed is printed; CHOPAR_FUZZ_SEED=<n> replays a run's requests (the
// server's state, and so some answers, may differ with timing).
//   node fuzz_api.mjs   (ctest: openapi_fuzz, 40 s; `make fuzz-api`: 10 minutes)
import { API_KEY, Chopar, skipReason } from "../browser/lib/chopar.mjs";
import { METHODS, checkExchange, resolve, spec, summarize } from "./lib/openapi.mjs";

// An empty variable counts as unset (`make fuzz-api` passes them through).
const seconds = Number(process.env.CHOPAR_FUZZ_SECONDS || 40);
const seed = process.env.CHOPAR_FUZZ_SEED ? Number(process.env.CHOPAR_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

// mulberry32: small, fast, and the same sequence from the same seed.
function prng(state) {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(seed);
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
const pick = (list) => list[Math.floor(random() * list.length)];
const chance = (p) => random() < p;

// Strings tried for a pattern, in order of preference; the first that
// matches (and fits the lengths) is used.
const PATTERN_SAMPLES = [
  "task.due", "order.shipped", "a", "abc", "key-1", "pill-17", "/tasks/1", "+998901234567", "12:30", "07:05",
  "2027-03-27T00:00:00Z", "v2.1.0.9999999999.abc", "x_y.z-1", "A1",
];
const WORDS = ["aziz", "email", "sms", "telegram", "push", "inapp", "uz", "en", "Asia/Tashkent", "UTC", "0 9 * * *", "@daily", "all", "x"];

function randomString(min = 0, max = 24) {
  const length = int(min, Math.max(min, Math.min(max, min + 24)));
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 _-.:/ʻяё😀";
  let text = "";
  while ([...text].length < length) text += pick([...alphabet]);
  return text;
}

function fitsLength(schema, text) {
  const length = [...text].length;
  return length >= (schema.minLength ?? 0) && length <= (schema.maxLength ?? Infinity);
}

// Merges allOf members into one schema (enough for generation).
function flatten(schema, depth = 0) {
  schema = resolve(schema) ?? {};
  if (schema.allOf && depth < 8) {
    const merged = { ...schema, allOf: undefined };
    for (const part of schema.allOf) {
      const flat = flatten(part, depth + 1);
      merged.properties = { ...(merged.properties ?? {}), ...(flat.properties ?? {}) };
      merged.required = [...(merged.required ?? []), ...(flat.required ?? [])];
      for (const [key, value] of Object.entries(flat)) if (!(key in merged) || merged[key] === undefined) merged[key] = value;
    }
    return merged;
  }
  return schema;
}

// A value valid against `schema`, as far as this generator can tell.
function generate(schema, depth = 0) {
  schema = flatten(schema);
  if ("const" in schema) return schema.const;
  if (schema.enum) return pick(schema.enum);
  if (schema.example !== undefined && chance(0.3)) return schema.example;
  const choices = schema.oneOf ?? schema.anyOf;
  if (choices) return generate(pick(choices), depth + 1);
  let type = schema.type ?? (schema.properties ? "object" : schema.items ? "array" : pick(["string", "integer"]));
  if (Array.isArray(type)) type = chance(0.15) && type.includes("null") ? "null" : pick(type.filter((t) => t !== "null")) ?? "null";
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return chance(0.5);
    case "integer":
    case "number": {
      const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : pick([0, 1, -5]));
      const hi = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : lo + pick([3, 100, 100000]));
      const n = chance(0.2) ? pick([lo, hi]) : int(lo, Math.min(hi, lo + 1000));
      return type === "number" && chance(0.3) ? n + 0.5 <= hi ? n + 0.5 : n : n;
    }
    case "string": {
      if (schema.format === "date-time") return new Date(Date.now() + int(-1e9, 1e9)).toISOString().replace(/\.\d+Z$/, "Z");
      if (schema.format === "email") return `${randomString(1, 8).replace(/[^a-z0-9]/g, "") || "a"}@example.uz`;
      if (schema.format === "uri") return `https://example.net/${int(0, 99)}`;
      if (schema.pattern) {
        const regex = new RegExp(schema.pattern, "u");
        const candidates = [...PATTERN_SAMPLES, ...WORDS].filter((text) => regex.test(text) && fitsLength(schema, text));
        if (candidates.length) return pick(candidates);
      }
      if (chance(0.4)) {
        const word = pick(WORDS);
        if (fitsLength(schema, word)) return word;
      }
      return randomString(schema.minLength ?? 0, schema.maxLength ?? 24);
    }
    case "array": {
      if (depth > 5) return [];
      const count = int(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, (schema.minItems ?? 0) + 3));
      return Array.from({ length: count }, () => generate(schema.items ?? {}, depth + 1));
    }
    case "object": {
      const value = {};
      const required = new Set(schema.required ?? []);
      for (const [name, member] of Object.entries(schema.properties ?? {})) {
        if (required.has(name) || (depth < 5 && chance(0.6))) value[name] = generate(member, depth + 1);
      }
      if (typeof schema.additionalProperties === "object" && depth < 4 && chance(0.5)) {
        value[pick(WORDS).replace(/[^a-z]/g, "") || "k"] = generate(schema.additionalProperties, depth + 1);
      }
      return value;
    }
    default:
      return null;
  }
}

// `value` broken in one place: what kind, and the broken value.
function mutate(value, schema, depth = 0) {
  schema = flatten(schema);
  const members = value && typeof value === "object" && !Array.isArray(value) ? Object.keys(value) : [];
  if (members.length && depth < 4 && chance(0.5)) {
    const name = pick(members);
    const inner = mutate(value[name], schema.properties?.[name] ?? {}, depth + 1);
    return { kind: `${name}: ${inner.kind}`, value: { ...value, [name]: inner.value } };
  }
  if (Array.isArray(value) && value.length && depth < 4 && chance(0.4)) {
    const i = int(0, value.length - 1);
    const inner = mutate(value[i], schema.items ?? {}, depth + 1);
    const copy = [...value];
    copy[i] = inner.value;
    return { kind: `[${i}]: ${inner.kind}`, value: copy };
  }
  const options = ["wrong type", "unknown member", "oversized string", "out of range"];
  if ((schema.required ?? []).length && members.length) options.push("required member missing");
  if (Array.isArray(value)) options.push("too many items");
  const kind = pick(options);
  switch (kind) {
    case "wrong type":
      return { kind, value: pick([typeof value === "string" ? 12345 : "x", true, null, [], {}, 1.5, -1, 2 ** 63]) };
    case "unknown member":
      return { kind, value: members.length || (value && typeof value === "object") ? { ...value, ["unknown_" + int(0, 9)]: 1 } : { x: value } };
    case "oversized string":
      return { kind, value: "ä".repeat((schema.maxLength ?? 1000) + int(1, pick([10, 100000]))) };
    case "out of range":
      return { kind, value: pick([(schema.maximum ?? 2 ** 53) + 1, (schema.minimum ?? -(2 ** 53)) - 1, 1e308, -0.5, 9223372036854775807]) };
    case "required member missing": {
      const copy = { ...value };
      delete copy[pick(schema.required.filter((name) => name in copy).concat(members).slice(0, 1))];
      return { kind, value: copy };
    }
    case "too many items":
      return { kind, value: Array.from({ length: (schema.maxItems ?? 1000) + 1 }, () => value[0] ?? 1) };
    default:
      return { kind, value };
  }
}

// The operations worth fuzzing: not the event stream, which never ends.
const operations = [];
for (const [template, item] of Object.entries(spec.paths)) {
  for (const method of Object.keys(item).filter((key) => METHODS.includes(key))) {
    const operation = item[method];
    const ok = resolve(operation.responses["200"]);
    if (ok?.content?.["text/event-stream"]) continue;
    const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve);
    operations.push({ template, method, operation, parameters });
  }
}

// A path parameter's value: mostly ids that exist (1..3) or keys used before.
function pathValue(parameter, valid) {
  const schema = flatten(parameter.schema ?? {});
  if (!valid && chance(0.5)) return pick(["0", "-1", "abc", "9223372036854775808", "1.5", "%00", "%2F", "ä".repeat(300)]);
  if (schema.type === "integer") return String(chance(0.8) ? int(1, 4) : generate(schema));
  return encodeURIComponent(String(chance(0.5) ? pick(["pill-17", "a-1", "wrong", "task.due"]) : generate(schema)));
}

function buildRequest(entry, tokens) {
  const valid = chance(0.5);
  const { template, method, operation, parameters } = entry;
  const notes = [];
  let pathname = template;
  for (const parameter of parameters.filter((p) => p.in === "path")) {
    pathname = pathname.replace(`{${parameter.name}}`, pathValue(parameter, valid || !chance(0.3)));
  }
  const query = [];
  for (const parameter of parameters.filter((p) => p.in === "query")) {
    if (!(parameter.required || chance(0.5))) continue;
    let value = generate(parameter.schema ?? {});
    if (!valid && chance(0.3)) {
      value = pick(["", "-1", "abc", "99999999999999999999", "ä".repeat(3000), "1e3"]);
      notes.push(`query ${parameter.name} broken`);
    }
    query.push(`${encodeURIComponent(parameter.name)}=${encodeURIComponent(typeof value === "object" ? JSON.stringify(value) : String(value))}`);
  }
  if (query.length) pathname += `?${query.join("&")}`;

  // Credentials as the operation asks, sometimes wrong.
  const security = operation.security ?? spec.security ?? [];
  const schemes = security.flatMap((requirement) => Object.keys(requirement));
  let auth = null;
  if (schemes.includes("apiKey")) auth = `Bearer ${API_KEY}`;
  else if (schemes.includes("subscriberToken")) auth = `Bearer ${tokens[int(0, tokens.length - 1)]}`;
  if (!valid && chance(0.1)) {
    auth = pick([null, "Bearer wrong", "Basic eDp5", `Bearer ${"x".repeat(5000)}`, "Bearer v2.1.0.1.AAAA"]);
    notes.push("credential broken");
  }

  let body;
  let contentType = "application/json";
  const requestBody = resolve(operation.requestBody);
  const jsonSchema = requestBody?.content?.["application/json"]?.schema;
  if (jsonSchema) {
    let value = generate(jsonSchema);
    if (!valid) {
      const form = int(0, 9);
      if (form === 0) {
        body = pick(["{", "{\"a\":", "[1,2", "nul", "\"\\ud800\"", "{\"a\":1}}", "\u0000", "{\"a\":1e999999}", "{".repeat(5000)]);
        notes.push("garbage JSON");
      } else if (form === 1) {
        body = JSON.stringify({ pad: "x".repeat(int(1, 2) * 1024 * 1024 + 10) });
        notes.push("over 1 MiB");
      } else {
        const broken = mutate(value, jsonSchema);
        value = broken.value;
        notes.push(`body ${broken.kind}`);
      }
    }
    if (body === undefined) body = JSON.stringify(value);
  } else if (requestBody?.content) {
    contentType = Object.keys(requestBody.content)[0];
    body = contentType.includes("form") ? `a=${int(0, 9)}&b=${encodeURIComponent(randomString())}` : randomString();
  } else if (!valid && method !== "get" && chance(0.2)) {
    body = "{\"unexpected\":true}";
    notes.push("body where none is documented");
  }
  return { method: method.toUpperCase(), pathname, auth, contentType, body, valid, notes };
}

async function send(chopar, request) {
  const headers = { "Content-Type": request.contentType };
  if (request.auth) headers.Authorization = request.auth;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 15000);
  try {
    const response = await fetch(`${chopar.url}${request.pathname}`, {
      method: request.method,
      headers,
      body: request.body,
      signal: controller.signal,
    });
    return { status: response.status, contentType: response.headers.get("content-type") ?? "", text: await response.text() };
  } catch (e) {
    return { status: 0, error: e.message };
  } finally {
    clearTimeout(timer);
  }
}

async function main() {
  console.log(`fuzz_api: seed ${seed} (CHOPAR_FUZZ_SEED=${seed} replays it), ${seconds} s, ${operations.length} operations`);
  const skip = skipReason();
  if (skip) {
    console.log(`skipped: ${skip}`);
    return 0;
  }
  // No bucket of [limits.http] stands between the fuzzer and the code.
  const chopar = new Chopar({ name: "fuzz", env: { CHOPAR_LIMITS_HTTP_SUBSCRIBER_PER_SECOND: "0", CHOPAR_LIMITS_HTTP_ADDRESS_PER_SECOND: "0" } });
  const violations = [];
  let sent = 0;
  const statuses = new Map();
  const unavailable = new Map();
  const entryName = (request) => request.pathname.split("?")[0];
  try {
    await chopar.start();
    for (const id of [1, 2, 3]) await chopar.call("PUT", `/v1/users/${id}`, { email: `u${id}@example.uz`, admin: id === 2 });
    const tokens = [];
    for (const id of [1, 2]) tokens.push(await chopar.token(id));
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline) {
      const request = buildRequest(pick(operations), tokens);
      const answer = await send(chopar, request);
      ++sent;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const described = `${request.method} ${request.pathname.slice(0, 200)} [${request.valid ? "valid" : "invalid"}${request.notes.length ? ": " + request.notes.join(", ") : ""}]`
        + (request.body ? ` body ${request.body.slice(0, 300)}${request.body.length > 300 ? `… (${request.body.length} bytes)` : ""}` : "");
      const found = [];
      if (answer.status === 0) {
        found.push({ operation: `${request.method} ${request.pathname.split("?")[0]}`, status: 0, problem: `no answer: ${answer.error}` });
      } else {
        if (answer.status >= 500 && answer.status !== 503) {
          found.push({ operation: `${request.method} ${request.pathname.split("?")[0]}`, status: answer.status, problem: `server error: ${answer.text.slice(0, 300)}` });
        }
        found.push(...checkExchange({
          method: request.method,
          path: request.pathname,
          status: answer.status,
          // The request is checked by its answer only: an invalid one may
          // well be answered 4xx, a valid one must be documented either way.
          requestContentType: null,
          requestBody: null,
          responseContentType: answer.contentType,
          responseBody: answer.text,
        }));
      }
      for (const problem of found) violations.push({ ...problem, where: described });
      // A documented 503 (a provider not configured) is no failure, but shown.
      if (answer.status === 503) unavailable.set(`${request.method} ${entryName(request)}`, answer.text.slice(0, 200));
      if (answer.status === 0 && chopar.process?.exitCode !== null) {
        violations.push({ operation: "chopar", status: 0, where: chopar.log.slice(-2000), problem: "the process exited" });
        break;
      }
    }
  } finally {
    await chopar.dispose();
  }
  console.log(`${sent} requests; statuses: ${[...statuses.entries()].sort().map(([s, n]) => `${s}×${n}`).join(" ")}`);
  for (const [operation, text] of unavailable) console.log(`503 (documented) from ${operation}: ${text}`);
  if (violations.length) {
    console.log(`FAILED (seed ${seed}): ${violations.length} answers break docs/openapi.yaml or the server:\n${summarize(violations)}`);
    return 1;
  }
  console.log("ok");
  return 0;
}

process.exitCode = await main();
