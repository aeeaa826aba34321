import { actionsRoutes } from "./actions-routes.ts";
import { createFromManifest } from "./app-registration.ts";
import { artifactRoutes } from "./artifact-routes.ts";
import { checkRunRoutes } from "./check-run-routes.ts";
import { issueRoutes } from "./issue-routes.ts";
import { jobRoutes } from "./job-routes.ts";
import { pullRoutes } from "./pull-routes.ts";
import { refRoutes } from "./ref-routes.ts";
import { gitDataRoutes } from "./git-data-routes.ts";
import { repoRoutes } from "./repo-routes.ts";
import type { Routes } from "./route-reply.ts";

/** Every REST operation the emulator answers, by GitHub's operation id. */
export const emulatorRoutes: Routes = {
  ...repoRoutes,
  ...pullRoutes,
  ...refRoutes,
  ...gitDataRoutes,
  ...checkRunRoutes,
  ...actionsRoutes,
  ...jobRoutes,
  ...artifactRoutes,
  ...issueRoutes,
  "apps/create-from-manifest": createFromManifest,
};
