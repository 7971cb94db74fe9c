// docs/openapi.yaml for the tests of tests/openapi: the parsed description,
// Ajv validators of its request and response bodies (JSON Schema 2020-12 as
// OpenAPI 3.1 uses it), the path template a concrete path is an instance of,
// and one check of an exchange (a request and its answer) against it.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import YAML from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.join(here, "../../..");
export const specText = fs.readFileSync(path.join(REPO_ROOT, "docs/openapi.yaml"), "utf8");
export const spec = YAML.parse(specText);
const SPEC_ID = "https://chopar.invalid/openapi.yaml";

export const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

export const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat("int64", { type: "number", validate: (n) => Number.isInteger(n) });
ajv.addSchema({ ...spec, $id: SPEC_ID });

// "#/components/responses/X" → the object it names.
export function resolve(object) {
  if (!object || !object.$ref) return object;
  return object.$ref
    .slice(2)
    .split("/")
    .reduce((node, key) => node[key.replaceAll("~1", "/").replaceAll("~0", "~")], spec);
}

// A JSON pointer into the description, as a URI fragment.
function pointer(...keys) {
  return keys.map((key) => encodeURIComponent(String(key).replaceAll("~", "~0").replaceAll("/", "~1"))).join("/");
}

// The operation `method` (lower case) of path template `template`, or undefined.
export function operationOf(template, method) {
  return spec.paths[template]?.[method];
}

// The validator of the JSON body of one documented response; null when the
// response has no JSON body.
const validators = new Map();
export function validatorFor(template, method, status) {
  const key = `${method} ${template} ${status}`;
  if (!validators.has(key)) {
    const declared = spec.paths[template][method].responses[String(status)];
    const base = declared.$ref ?? `#/${pointer("paths", template, method, "responses", String(status))}`;
    const json = resolve(declared).content?.["application/json"];
    validators.set(key, json ? ajv.compile({ $ref: `${SPEC_ID}${base}/content/application~1json/schema` }) : null);
  }
  return validators.get(key);
}

// The validator of the JSON request body of an operation; null when the
// operation documents no JSON request body.
const requestValidators = new Map();
export function requestValidatorFor(template, method) {
  const key = `${method} ${template}`;
  if (!requestValidators.has(key)) {
    const declared = spec.paths[template][method].requestBody;
    let validate = null;
    if (declared) {
      const base = declared.$ref ?? `#/${pointer("paths", template, method, "requestBody")}`;
      if (resolve(declared).content?.["application/json"]) {
        validate = ajv.compile({ $ref: `${SPEC_ID}${base}/content/application~1json/schema` });
      }
    }
    requestValidators.set(key, validate);
  }
  return requestValidators.get(key);
}

// The JSON schema of an operation's request body (references resolved only
// at the top), or null.
export function requestSchemaOf(template, method) {
  const declared = resolve(spec.paths[template][method].requestBody);
  const schema = declared?.content?.["application/json"]?.schema;
  return schema ? resolve(schema) : null;
}

// Whether `segment` may stand for path parameter `name` of `template`: an
// integer parameter only for decimal digits (the router's `{id}`: anything
// else matches no route, 404), any other non-empty segment.
function segmentFits(template, name, segment) {
  if (segment === "") return false;
  const item = spec.paths[template];
  const declared = [...(item.parameters ?? []), ...METHODS.flatMap((m) => item[m]?.parameters ?? [])]
    .map(resolve)
    .find((parameter) => parameter.in === "path" && parameter.name === name);
  const type = resolve(declared?.schema)?.type;
  return type !== "integer" || /^[0-9]+$/.test(segment);
}

// The path template of the description that `pathname` is an instance of
// (literal segments preferred over parameters), or undefined.
export function templateOf(pathname) {
  const segments = pathname.split("?")[0].split("/");
  const literalFirst = Object.keys(spec.paths).sort((a, b) => (a.match(/\{/g) ?? []).length - (b.match(/\{/g) ?? []).length);
  return literalFirst.find((template) => {
    const parts = template.split("/");
    return (
      parts.length === segments.length &&
      parts.every((part, i) => (part.startsWith("{") ? segmentFits(template, part.slice(1, -1), segments[i]) : part === segments[i]))
    );
  });
}

// Every documented operation, "METHOD /path/{param}".
export function documentedOperations() {
  const operations = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    for (const method of Object.keys(item).filter((key) => METHODS.includes(key))) {
      operations.push(`${method.toUpperCase()} ${template}`);
    }
  }
  return operations.sort();
}

const validateError = ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/Error` });
function parseOrUndefined(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// The problems of one exchange against the description, [] when none:
//   { method, path, status, requestContentType, requestBody (text or null),
//     responseContentType, responseBody (text) }.
// A 4xx answer's request is not checked (the test may have sent a bad one
// on purpose); every answer must be a documented status of its operation
// with a body valid against that status's schema. Bodies cut short
// (*Truncated) are not parsed.
export function checkExchange(exchange) {
  const { method, status } = exchange;
  const lower = method.toLowerCase();
  const template = templateOf(exchange.path);
  const where = `${method} ${exchange.path} → ${status}`;
  if (!template) {
    // A path no operation serves: any 4xx with the error body (the
    // router's 404, or a refusal before routing: 413, 431) belongs to none.
    if (status >= 400 && status < 500 && validateError(parseOrUndefined(exchange.responseBody))) return [];
    return [{ operation: `${method} ${exchange.path.split("?")[0]}`, status, where, problem: "no path of the description matches" }];
  }
  const operation = operationOf(template, lower);
  const name = `${method} ${template}`;
  if (!operation) return [{ operation: name, status, where, problem: "the operation is not described" }];
  const problems = [];
  const add = (problem) => problems.push({ operation: name, status, where, problem });

  if (!(status >= 400 && status < 500) && exchange.requestBody != null && !exchange.requestTruncated) {
    const validate = requestValidatorFor(template, lower);
    if (!operation.requestBody) {
      add("a request body was sent, the operation documents none");
    } else if (validate && /^application\/json/.test(exchange.requestContentType ?? "")) {
      let parsed;
      try {
        parsed = JSON.parse(exchange.requestBody);
      } catch (e) {
        add(`the request body is not JSON: ${e.message}`);
      }
      if (parsed !== undefined && !validate(parsed)) add(`request body: ${ajv.errorsText(validate.errors)}`);
    }
  }

  if (!operation.responses[String(status)]) {
    add(`status ${status} is not described (described: ${Object.keys(operation.responses).join(", ")})`);
    return problems;
  }
  const validate = validatorFor(template, lower, status);
  if (validate && !exchange.responseTruncated) {
    if (!/^application\/json/.test(exchange.responseContentType ?? "")) {
      add(`content-type ${JSON.stringify(exchange.responseContentType)}, documented application/json`);
    } else {
      let parsed;
      try {
        parsed = JSON.parse(exchange.responseBody);
      } catch (e) {
        add(`the response body is not JSON: ${e.message}`);
      }
      if (parsed !== undefined && !validate(parsed)) add(`response body: ${ajv.errorsText(validate.errors)}`);
    }
  }
  return problems;
}

// Violations grouped for a readable failure: "operation status: problem" →
// count and the first place seen.
export function summarize(violations) {
  const groups = new Map();
  for (const v of violations) {
    const key = `${v.operation} ${v.status}: ${v.problem}`;
    const where = v.where.length > 400 ? `${v.where.slice(0, 400)}…` : v.where;
    const group = groups.get(key) ?? { count: 0, first: where + (v.test ? ` (${v.test})` : "") };
    group.count += 1;
    groups.set(key, group);
  }
  return [...groups.entries()].map(([key, { count, first }]) => `${key}\n    ×${count}, first: ${first}`).join("\n");
}
