import { generateKeyPairSync, randomBytes, verify, type KeyObject } from "node:crypto";
import type { Core } from "./create-core.ts";
import { takeId } from "./emulator-state.ts";
import { fail, ok, type Handler, type Reply } from "./route-reply.ts";
import { HTML, iso, userJson } from "./user-json.ts";
import { appTokenPermissions } from "./token-permissions.ts";

/**
 * GitHub's manifest flow (docs: "Registering a GitHub App from a manifest"): the setup page posts a
 * manifest to `<github>/settings/apps/new`; when the person clicks "Create GitHub App", GitHub
 * registers the App and redirects to the manifest's `redirect_url` with `?code=`; the page's server
 * exchanges the code within one hour, once, at `POST /app-manifests/{code}/conversions` (no
 * authentication) for the App's id, private key (pem), webhook secret and client credentials.
 * From then on GitHub signs webhooks with that secret, sends them to `hook_attributes.url`, and
 * accepts only JWTs signed with that key (RS256, `iss` = the App's id, `exp` at most 10 minutes).
 */
export type AppRegistration = {
  code: string;
  expiresAt: number;
  exchanged: boolean;
  id: number;
  slug: string;
  name: string;
  hookUrl: string;
  webhookSecret: string;
  pem: string;
  publicKey: KeyObject;
  manifest: Record<string, unknown>;
};

const CODE_TTL_MS = 60 * 60 * 1000;

/** What github.com does when the person confirms the manifest: the code for the redirect. */
export function registerApp(core: Core, manifestText: string): { code: string; redirectUrl: string } {
  const manifest = JSON.parse(manifestText) as Record<string, unknown>;
  const name = typeof manifest["name"] === "string" ? manifest["name"] : "";
  const hook = manifest["hook_attributes"] as { url?: unknown } | undefined;
  const redirect = manifest["redirect_url"];
  if (name === "" || typeof hook?.url !== "string" || typeof redirect !== "string")
    throw new Error("a manifest needs name, hook_attributes.url and redirect_url");
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const registration: AppRegistration = {
    code: randomBytes(10).toString("hex"),
    expiresAt: core.now() + CODE_TTL_MS,
    exchanged: false,
    id: takeId(core.state),
    slug: name.toLowerCase().replace(/[^a-z0-9-]+/g, "-"),
    name,
    hookUrl: hook.url,
    webhookSecret: randomBytes(20).toString("hex"),
    pem: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    publicKey,
    manifest,
  };
  core.state.appRegistrations.push(registration);
  const url = new URL(redirect);
  url.searchParams.set("code", registration.code);
  return { code: registration.code, redirectUrl: url.toString() };
}

/** `POST /app-manifests/{code}/conversions`: once per code, within the hour; 404 otherwise. */
export const createFromManifest: Handler = ({ core, params }): Reply => {
  const registration = core.state.appRegistrations.find((r) => r.code === params["code"]);
  if (!registration || registration.exchanged || registration.expiresAt < core.now())
    return fail(404, "Not Found");
  registration.exchanged = true;
  core.json.appId = registration.id;
  core.json.appSlug = registration.slug;
  core.webhooks.target.url = registration.hookUrl;
  delete core.webhooks.target.urls;
  core.webhooks.target.secret = registration.webhookSecret;
  const permissions = (registration.manifest["default_permissions"] ?? {}) as Record<string, string>;
  // What GitHub grants the App's installations once installed: what the manifest asks for.
  core.state.appPermissions = appTokenPermissions(permissions);
  const events = (registration.manifest["default_events"] ?? []) as string[];
  return ok(
    {
      id: registration.id,
      slug: registration.slug,
      node_id: `A_${registration.id}`,
      client_id: `Iv1.${registration.code}`,
      owner: userJson(core.json, "acme"),
      name: registration.name,
      description:
        typeof registration.manifest["description"] === "string"
          ? registration.manifest["description"]
          : null,
      external_url: typeof registration.manifest["url"] === "string" ? registration.manifest["url"] : HTML,
      html_url: `${HTML}/apps/${registration.slug}`,
      created_at: iso(core.now()),
      updated_at: iso(core.now()),
      permissions,
      events,
      client_secret: randomBytes(20).toString("hex"),
      webhook_secret: registration.webhookSecret,
      pem: registration.pem,
    },
    201,
  );
};

/**
 * Whether a JWT may act as the App: once an App was registered through the manifest flow, only a
 * token signed with its key, issued by its id and not expired (GitHub allows `exp` ≤ 10 minutes
 * ahead) is; before that the emulator takes any JWT, as the tests that bring their own key expect.
 */
export function isValidAppJwt(core: Core, token: string): boolean {
  const registration = core.state.appRegistrations.find((r) => r.exchanged);
  if (!registration) return true;
  const [header, claims, signature] = token.split(".");
  if (header === undefined || claims === undefined || signature === undefined) return false;
  const signed = verify(
    "RSA-SHA256",
    Buffer.from(`${header}.${claims}`),
    registration.publicKey,
    Buffer.from(signature, "base64url"),
  );
  if (!signed) return false;
  const body = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as {
    iss?: unknown;
    exp?: unknown;
  };
  const nowSeconds = Math.floor(core.now() / 1000);
  return (
    String(body.iss) === String(registration.id) &&
    typeof body.exp === "number" &&
    body.exp > nowSeconds - 60 &&
    body.exp <= nowSeconds + 660
  );
}
