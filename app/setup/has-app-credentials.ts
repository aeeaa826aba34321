/** Whether the environment names a GitHub App (Probot serves the setup page otherwise). */
export function hasAppCredentials(env: Record<string, string | undefined>): boolean {
  return Boolean(env["APP_ID"]) && Boolean(env["PRIVATE_KEY"] || env["PRIVATE_KEY_PATH"]);
}
