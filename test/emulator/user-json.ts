/**
 * GitHub-shaped JSON shared by every record: the emulator's context, timestamps, users.
 */

export type Json = Record<string, unknown>;

export type JsonContext = { url: string; appId: number; appSlug: string };

export const HTML = "https://github.emulator.invalid";

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function idOfLogin(login: string): number {
  let hash = 7;
  for (const char of login) hash = (hash * 31 + char.charCodeAt(0)) % 9_000_000;
  return 1_000_000 + hash;
}

export function userJson(ctx: JsonContext, login: string): Json {
  const id = idOfLogin(login);
  const api = `${ctx.url}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: `U_${id}`,
    avatar_url: `${HTML}/avatars/${id}`,
    gravatar_id: "",
    url: api,
    html_url: `${HTML}/${encodeURIComponent(login)}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: login.endsWith("[bot]") ? "Bot" : "User",
    site_admin: false,
  };
}

/** The `{name}_url` fields every repository object carries: `[field, path under the repo's API URL]`. */
