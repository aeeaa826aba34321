import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { DOCUMENT, derivedCachePath, findOperation } from "../support/openapi.ts";

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
const validators = new Map<string, ValidateFunction | null>();
type Description = {
  paths: Record<string, Record<string, { responses?: Responses }>>;
  "x-webhooks": Record<
    string,
    { post?: { requestBody?: { content?: Record<string, { schema?: Schema }> } } }
  >;
};

/**
 * The schemas answers and webhooks are checked against, one file each, in a folder of the temp
 * directory named after the description's size and time: parsing the 73 MB description cost every
 * test process that starts the emulator 1.5–3 s of CPU. The first process to need a schema writes
 * them all (10 MB of answers, 13 MB of webhooks); the others read only those they check.
 */
let schemaDir: string | undefined;

function schemaFolder(): string {
  if (schemaDir !== undefined) return schemaDir;
  const folder = derivedCachePath("loom-openapi-schemas");
  if (!existsSync(join(folder, COMPLETE))) writeSchemaFolder(folder);
  schemaDir = folder;
  return folder;
}

const COMPLETE = "complete";

function fileOf(key: string): string {
  return `${createHash("sha1").update(key).digest("hex")}.json`;
}

function responseKey(template: string, method: string, status: number): string {
  return `response ${method.toLowerCase()} ${template} ${status}`;
}

/** Writes every 2xx JSON answer schema and every webhook schema, aside and then renamed into place. */
function writeSchemaFolder(folder: string): void {
  const description = JSON.parse(readFileSync(DOCUMENT, "utf8")) as Description;
  const temporary = `${folder}.${process.pid}.tmp`;
  rmSync(temporary, { recursive: true, force: true });
  mkdirSync(temporary, { recursive: true });
  for (const [template, item] of Object.entries(description.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const schema = response.content?.["application/json"]?.schema;
        if (schema === undefined || Number(status) >= 300) continue;
        const key = responseKey(template, method, Number(status));
        writeFileSync(join(temporary, fileOf(key)), JSON.stringify(schema));
      }
    }
  }
  for (const [name, hook] of Object.entries(description["x-webhooks"])) {
    const schema = hook.post?.requestBody?.content?.["application/json"]?.schema;
    if (schema !== undefined)
      writeFileSync(join(temporary, fileOf(`webhook ${name}`)), JSON.stringify(schema));
  }
  writeFileSync(join(temporary, COMPLETE), "");
  try {
    renameSync(temporary, folder);
  } catch (error) {
    // Another process finished first (its folder is complete): keep it.
    rmSync(temporary, { recursive: true, force: true });
    if (!existsSync(join(folder, COMPLETE))) throw error;
  }
}

/** The schema stored under `key`, or undefined when the description has none. */
function readSchema(key: string): Schema | undefined {
  try {
    return JSON.parse(readFileSync(join(schemaFolder(), fileOf(key)), "utf8")) as Schema;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Checks a webhook payload against the schema GitHub's description gives for `event`.`action`
 * (`x-webhooks`, e.g. `check-suite-rerequested`). Returns the problems; throws when the
 * description has no such webhook.
 */
export function validateWebhook(event: string, action: string, payload: unknown): string[] {
  const name = `${event}-${action}`.replaceAll("_", "-");
  const key = `webhook ${name}`;
  let validate = validators.get(key);
  if (!validate) {
    const schema = readSchema(key);
    if (!schema) throw new Error(`GitHub's description has no webhook ${name}`);
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
  const key = responseKey(found.template, method, status);
  let validate = validators.get(key);
  if (validate === undefined) {
    const schema = readSchema(key);
    validate = schema === undefined ? null : ajv.compile(dropBareNullable(schema));
    validators.set(key, validate);
  }
  if (validate === null) return [];
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
