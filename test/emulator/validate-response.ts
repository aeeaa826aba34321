import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { findOperation } from "../support/openapi.ts";

/**
 * Checks one of the emulator's JSON answers against the response schema GitHub's OpenAPI
 * description gives for that operation and status. Returns the problems (empty when it fits or when
 * the description has no JSON schema for that status).
 */

type Schema = Record<string, unknown>;
type Responses = Record<string, { content?: Record<string, { schema?: Schema }> }>;

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
const DOCUMENT = fileURLToPath(
  new URL("../../node_modules/@octokit/openapi/generated/api.github.com.deref.json", import.meta.url),
);
type Description = {
  paths: Record<string, Record<string, { responses?: Responses }>>;
  "x-webhooks": Record<
    string,
    { post?: { requestBody?: { content?: Record<string, { schema?: Schema }> } } }
  >;
};
let description: Description | undefined;

/** The full description (73 MB) is read only when something is checked, once per process. */
function loadDescription(): Description {
  description ??= JSON.parse(readFileSync(DOCUMENT, "utf8")) as Description;
  return description;
}

function loadPaths(): Description["paths"] {
  return loadDescription().paths;
}

/**
 * Checks a webhook payload against the schema GitHub's description gives for `event`.`action`
 * (`x-webhooks`, e.g. `check-suite-rerequested`). Returns the problems; throws when the
 * description has no such webhook.
 */
export function validateWebhook(event: string, action: string, payload: unknown): string[] {
  const name = `${event}-${action}`.replaceAll("_", "-");
  const schema =
    loadDescription()["x-webhooks"][name]?.post?.requestBody?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`GitHub's description has no webhook ${name}`);
  const key = `webhook ${name}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(dropBareNullable(schema));
    validators.set(key, validate);
  }
  if (validate(payload)) return [];
  return (validate.errors ?? [])
    .filter((e) => !(e.keyword === "enum" && valueAt(payload, e.instancePath) === null))
    .slice(0, 20)
    .map((e) => `payload${e.instancePath} ${e.message ?? "is invalid"}`);
}

export function validateResponse(method: string, pathname: string, status: number, body: unknown): string[] {
  const found = findOperation(method, pathname);
  if ("error" in found) return [];
  const responses = loadPaths()[found.template]?.[method.toLowerCase()]?.responses ?? {};
  const schema = responses[String(status)]?.content?.["application/json"]?.schema;
  if (!schema) return [];
  const key = `${found.operation.operationId} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(dropBareNullable(schema));
    validators.set(key, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? [])
    .filter((e) => !(e.keyword === "enum" && valueAt(body, e.instancePath) === null))
    .slice(0, 20)
    .map((e) => `response${e.instancePath} ${e.message ?? "is invalid"}`);
}

/** GitHub's description has `nullable: true` without `type` in places (e.g. on `anyOf`), which Ajv refuses to compile. */
function dropBareNullable(schema: unknown): Schema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== "object" || node === null) return node;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) copy[key] = walk(value);
    if ("nullable" in copy && !("type" in copy)) delete copy["nullable"];
    return copy;
  };
  return walk(schema) as Schema;
}

/**
 * The value at a JSON pointer. OpenAPI 3.0 writes a nullable enum as `nullable: true` next to an
 * enum without null, which Ajv reads as "null is not allowed": GitHub does answer null there
 * (a check run's `conclusion` before it completes), so such errors are not counted.
 */
function valueAt(body: unknown, pointer: string): unknown {
  let value = body;
  for (const part of pointer.split("/").slice(1)) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return value;
}
