import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

/**
 * Checks a request against GitHub's own OpenAPI description (`@octokit/openapi`, the dereferenced
 * api.github.com document): the path template and method exist, path and query parameters fit
 * their schemas, and the JSON body validates against the operation's request body schema.
 * The 73 MB document is read once per process, or rather its slim extract (paths, parameters and
 * request bodies, no responses) cached in the temp directory; body validators are compiled lazily.
 */

export type RequestToValidate = {
  method: string;
  /** Path with query, e.g. `/repos/o/r/commits/abc/check-runs?check_name=loom%3A%20x`. */
  path: string;
  /** Parsed JSON body, a JSON string, or undefined/empty for none. */
  body?: unknown;
};

export type ValidationResult = { ok: true; operationId: string } | { ok: false; errors: string[] };

type Schema = Record<string, unknown>;
type Parameter = {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
  "x-multi-segment"?: boolean;
};
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
};
type Route = {
  template: string;
  pattern: RegExp;
  names: string[];
  literals: number;
  operations: Map<string, Operation>;
};

/** GitHub's dereferenced api.github.com description (73 MB). */
export const DOCUMENT = fileURLToPath(
  new URL("../../node_modules/@octokit/openapi/generated/api.github.com.deref.json", import.meta.url),
);

/** A path in the temp directory for what is derived from `DOCUMENT`, named after its size and time. */
export function derivedCachePath(name: string): string {
  const stat = statSync(DOCUMENT);
  return join(tmpdir(), `${name}-${stat.size}-${Math.floor(stat.mtimeMs)}`);
}
const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"] as const;

let routes: Route[] | undefined;
const validators = new Map<string, ValidateFunction>();
// ajv-formats is CommonJS: its default export arrives as the module object under Node's ESM loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

type Paths = Record<string, Record<string, unknown>>;

/** Paths with only what requests are checked against, cached by the document's size and time. */
function loadSlimPaths(): Paths {
  const cache = `${derivedCachePath("loom-openapi-slim")}.json`;
  try {
    return JSON.parse(readFileSync(cache, "utf8")) as Paths;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const document = JSON.parse(readFileSync(DOCUMENT, "utf8")) as { paths: Paths };
  const slim: Paths = {};
  for (const [template, item] of Object.entries(document.paths)) {
    const methods: Record<string, unknown> = {};
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const { operationId, parameters, requestBody } = operation;
      methods[method] = { operationId, parameters, requestBody };
    }
    slim[template] = methods;
  }
  // Written aside and renamed, so parallel test processes never read half a file.
  const temporary = `${cache}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(slim));
  renameSync(temporary, cache);
  return slim;
}

function loadRoutes(): Route[] {
  if (routes) return routes;
  routes = Object.entries(loadSlimPaths()).map(([template, item]) => toRoute(template, item));
  // Prefer the most specific template when several match (more literal segments first).
  routes.sort((a, b) => b.literals - a.literals);
  return routes;
}

function toRoute(template: string, item: Record<string, unknown>): Route {
  const operations = new Map<string, Operation>();
  for (const method of METHODS) {
    const operation = item[method] as Operation | undefined;
    if (operation) operations.set(method.toUpperCase(), operation);
  }
  const names: string[] = [];
  const multi = new Set<string>();
  for (const operation of operations.values()) {
    for (const p of operation.parameters ?? [])
      if (p.in === "path" && p["x-multi-segment"]) multi.add(p.name);
  }
  let literals = 0;
  const source = template
    .split("/")
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param?.[1]) {
        literals++;
        return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      }
      names.push(param[1]);
      return multi.has(param[1]) ? "(.+)" : "([^/]+)";
    })
    .join("/");
  return { template, pattern: new RegExp(`^${source}$`), names, literals, operations };
}

/** Finds the operation for a method and path, or says why there is none. */
export function findOperation(
  method: string,
  pathname: string,
): { template: string; operation: Operation; params: Record<string, string> } | { error: string } {
  const upper = method.toUpperCase();
  let pathFound = false;
  for (const route of loadRoutes()) {
    const match = route.pattern.exec(pathname);
    if (!match) continue;
    pathFound = true;
    const operation = route.operations.get(upper);
    if (!operation) continue;
    const params: Record<string, string> = {};
    route.names.forEach((name, i) => {
      params[name] = decodeURIComponent(match[i + 1] ?? "");
    });
    return { template: route.template, operation, params };
  }
  return {
    error: pathFound ? `no ${upper} operation for ${pathname}` : `no path template matches ${pathname}`,
  };
}

function checkParameter(p: Parameter, value: string): string | null {
  const type = p.schema?.type;
  const values = p.schema?.enum as unknown[] | undefined;
  if (value === "") return `${p.in} parameter ${p.name} is empty`;
  if (type === "integer" && !/^-?\d+$/.test(value))
    return `${p.in} parameter ${p.name}=${value} is not an integer`;
  if (type === "number" && Number.isNaN(Number(value)))
    return `${p.in} parameter ${p.name}=${value} is not a number`;
  if (type === "boolean" && value !== "true" && value !== "false")
    return `${p.in} parameter ${p.name}=${value} is not a boolean`;
  if (values && !values.map(String).includes(value))
    return `${p.in} parameter ${p.name}=${value} is not one of ${values.map(String).join(", ")}`;
  return null;
}

function validatorFor(key: string, schema: Schema): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

function parseBody(body: unknown): { present: boolean; value: unknown; error?: string } {
  if (body === undefined || body === null || body === "") return { present: false, value: undefined };
  if (typeof body !== "string") return { present: true, value: body };
  try {
    return { present: true, value: JSON.parse(body) as unknown };
  } catch (error) {
    return { present: true, value: body, error: `body is not JSON: ${(error as Error).message}` };
  }
}

/** Validates one request against the OpenAPI description. */
export function validateRequest(request: RequestToValidate): ValidationResult {
  const url = new URL(request.path, "https://api.github.com");
  const found = findOperation(request.method, url.pathname);
  if ("error" in found) return { ok: false, errors: [found.error] };
  const { operation, params, template } = found;
  const where = `${request.method.toUpperCase()} ${template}`;
  const errors: string[] = [];
  const declared = operation.parameters ?? [];
  for (const p of declared.filter((d) => d.in === "path")) {
    const problem = checkParameter(p, params[p.name] ?? "");
    if (problem) errors.push(problem);
  }
  for (const [name, value] of url.searchParams) {
    const p = declared.find((d) => d.in === "query" && d.name === name);
    if (!p) errors.push(`unknown query parameter ${name}`);
    else {
      const problem = checkParameter(p, value);
      if (problem) errors.push(problem);
    }
  }
  for (const p of declared.filter((d) => d.in === "query" && d.required)) {
    if (!url.searchParams.has(p.name)) errors.push(`missing required query parameter ${p.name}`);
  }
  const body = parseBody(request.body);
  if (body.error) errors.push(body.error);
  const schema = operation.requestBody?.content?.["application/json"]?.schema;
  if (body.present && !body.error) {
    if (!schema) errors.push("operation takes no JSON body");
    else {
      const validate = validatorFor(operation.operationId, schema);
      if (!validate(body.value)) {
        for (const e of validate.errors ?? [])
          errors.push(`body${e.instancePath} ${e.message ?? "is invalid"}`);
      }
    }
  } else if (!body.present && operation.requestBody?.required) {
    errors.push("missing required request body");
  }
  if (errors.length > 0) return { ok: false, errors: errors.map((e) => `${where}: ${e}`) };
  return { ok: true, operationId: operation.operationId };
}
