import { run, type Server } from "probot";
import { hasAppCredentials } from "./has-app-credentials.ts";
import { loadEnvFile } from "./load-env-file.ts";
import { writeEnvFile } from "./write-env-file.ts";

export type SetupOptions = {
  /** The `.env` file the manifest flow writes the App's credentials to. */
  envPath: string;
  /** The process environment: the new credentials are applied to it too. */
  env: Record<string, string | undefined>;
  /** Starts the working App, once the setup server has stopped (same port). */
  startApp: () => Promise<void>;
  /** Where the failure of that start is reported. */
  onStartFailed: (error: unknown) => void;
};

/**
 * First start, no credentials: Probot's setup page registers a GitHub App from `app.yml` (GitHub's
 * manifest flow) and writes APP_ID, PRIVATE_KEY and WEBHOOK_SECRET. loom writes them into `.env`
 * without touching the rest of the file, then stops the setup server and starts the working App in
 * the same process, on the same port: no restart, no further step.
 *
 * Where GitHub sends webhooks is the URL the setup page registers: `WEBHOOK_PROXY_URL` when set
 * (a smee.io channel, forwarded to this process), else the address the page was opened at, which
 * the working App serves webhooks at (besides Probot's `/api/github/webhooks`).
 */
export async function serveSetup(options: SetupOptions): Promise<Server> {
  let switching = false;
  const switchToApp = async (server: Server) => {
    await server.stop();
    await options.startApp();
  };
  const holder: { server: Server | null } = { server: null };
  const server = await run(() => undefined, {
    updateEnv: (given: NodeJS.ProcessEnv) => {
      const values = Object.fromEntries(
        Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== undefined),
      );
      writeEnvFile(options.envPath, values);
      // As a restart would read them: Probot hands the private key over in quotes, which only the
      // `.env` reader takes off (the drain thread's Octokit cannot read a quoted key).
      loadEnvFile(options.env, options.envPath);
      if (!switching && holder.server !== null && hasAppCredentials(options.env)) {
        switching = true;
        const current = holder.server;
        // After the handler has answered its redirect: the setup server then closes idle.
        setImmediate(() => {
          switchToApp(current).catch(options.onStartFailed);
        });
      }
      return given;
    },
  });
  holder.server = server;
  if (!options.env["WEBHOOK_PROXY_URL"]) {
    console.warn(
      "loom: GitHub must reach this App's webhook URL, which the setup page registers. Open the setup page at " +
        "the App's public address (https://loom.example.com/), or set WEBHOOK_PROXY_URL to a smee.io channel " +
        "in .env to try loom from this machine. See docs/install.md.",
    );
  }
  return server;
}
