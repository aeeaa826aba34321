import { deepMerge, exampleOf } from "../support/webhook-payloads.ts";
import type { RepoRecord } from "./emulator-state.ts";
import { repoJson } from "./repo-json.ts";
import { userJson, type JsonContext } from "./user-json.ts";

type Json = Record<string, unknown>;

/**
 * A webhook payload: GitHub's own example of `event`.`action` (`@octokit/webhooks-examples`) with
 * the repository, installation, sender and `override` (the emulator's records) put over it.
 */
export function buildWebhookPayload(
  ctx: JsonContext,
  repo: RepoRecord,
  event: string,
  action: string | null,
  sender: string,
  override: Json,
): Json {
  const base = exampleOf(event, action ?? "");
  const merged = deepMerge(base, {
    repository: repoJson(ctx, repo),
    installation: { id: repo.installationId, node_id: `I_${repo.installationId}` },
    sender: userJson(ctx, sender),
    organization: organizationJson(ctx, repo.owner),
  });
  // Records replace the example's objects wholesale, so no stale example field survives inside them.
  const payload: Json = { ...merged, ...override };
  if (action !== null) payload["action"] = action;
  return payload;
}

/** The repository's owner as an organization (`organization-simple-webhooks`). */
function organizationJson(ctx: JsonContext, login: string): Json {
  const url = `${ctx.url}/orgs/${login}`;
  return {
    login,
    id: 1,
    node_id: "O_1",
    url,
    repos_url: `${url}/repos`,
    events_url: `${url}/events`,
    hooks_url: `${url}/hooks`,
    issues_url: `${url}/issues`,
    members_url: `${url}/members{/member}`,
    public_members_url: `${url}/public_members{/member}`,
    avatar_url: "https://avatars.githubusercontent.com/u/1?v=4",
    description: null,
  };
}
