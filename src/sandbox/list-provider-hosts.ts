type Env = Readonly<Record<string, string | undefined>>;

/**
 * A gateway's endpoint as an allowlist entry, `host:port` (`[::1]:8080`): only that port of its
 * host is let through, so a gateway on the runner's loopback or an internal address opens nothing
 * else there. Undefined when `url` is not a URL.
 */
function hostOf(url: string | undefined): string | undefined {
  if (url === undefined || url.trim() === "") return undefined;
  try {
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === "http:" ? "80" : "443");
    return `${parsed.hostname}:${port}`;
  } catch {
    return undefined;
  }
}

/**
 * The hosts the session's model provider needs, from the session's environment (the variables
 * Claude Code reads): a gateway's base URL when one is set; else Amazon Bedrock's runtime in
 * `AWS_REGION`; else Vertex AI's regional (or global) endpoint and Google's token endpoints for
 * workload identity federation; else the Anthropic API. These are always allowed: a sandbox that
 * cut the model off would only fail the stage.
 */
export function listProviderHosts(env: Env): string[] {
  const base = hostOf(env.ANTHROPIC_BASE_URL);
  if (env.CLAUDE_CODE_USE_BEDROCK === "1") {
    const gateway = hostOf(env.ANTHROPIC_BEDROCK_BASE_URL);
    if (gateway !== undefined) return [gateway];
    const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1";
    return [`bedrock-runtime.${region}.amazonaws.com`, `bedrock.${region}.amazonaws.com`];
  }
  if (env.CLAUDE_CODE_USE_VERTEX === "1") {
    const gateway = hostOf(env.ANTHROPIC_VERTEX_BASE_URL);
    if (gateway !== undefined) return [gateway];
    const region = env.CLOUD_ML_REGION ?? "global";
    return [
      region === "global" ? "aiplatform.googleapis.com" : `${region}-aiplatform.googleapis.com`,
      "oauth2.googleapis.com",
      "sts.googleapis.com",
      "iamcredentials.googleapis.com",
    ];
  }
  return [base ?? "api.anthropic.com"];
}
