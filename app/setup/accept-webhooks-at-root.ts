import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

/**
 * Probot's setup page registers the App with the webhook URL `<address the page was opened at>/`
 * (Probot serves webhooks at `/api/github/webhooks`). loom therefore also takes signed webhooks
 * posted to `/`, verified exactly like the others, so the App the manifest flow registered works as
 * registered. Only `POST /` is taken; everything else goes on to the next handler.
 */
export async function acceptWebhooksAtRoot(app: Probot): Promise<Handler> {
  const middleware = (await app.getNodeMiddleware({ path: "/" })) as Handler;
  return (req, res) => {
    if (req.method !== "POST") return false;
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    return pathname === "/" ? middleware(req, res) : false;
  };
}
