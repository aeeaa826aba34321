import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { createCore } from "./create-core.ts";
import { createFaults } from "./create-faults.ts";
import { createGitRepo } from "./create-git-repo.ts";
import { createPerson } from "./create-person.ts";
import { createRunControl } from "./create-run-control.ts";
import { createWebhookSender } from "./create-webhook-sender.ts";
import { createZip } from "./create-zip.ts";
import {
  createEmulatorState,
  takeId,
  type ArtifactRecord,
  type EmulatorState,
  type RepoRecord,
  type Role,
} from "./emulator-state.ts";
import { createRequestHandler, type RecordedRequest, type Violation } from "./handle-request.ts";
import type { EmulatorSettings } from "./route-reply.ts";
import { registerApp } from "./app-registration.ts";
import { buildRunnerEnv } from "./build-runner-env.ts";
import { emulatorRoutes } from "./emulator-routes.ts";
import { endJobToken } from "./caller-of.ts";
import { appTokenPermissions, jobTokenPermissions } from "./token-permissions.ts";
import type { Emulator, EmulatorOptions, RepoSeed } from "./emulator-api.ts";

export type { Emulator, EmulatorOptions, RepoSeed } from "./emulator-api.ts";

const DEFAULT_REPO: RepoSeed = {
  owner: "acme",
  name: "widgets",
  defaultBranch: "main",
  installationId: 4242,
  files: { "README.md": "# widgets\n" },
};

async function createRepo(
  dir: string,
  seed: RepoSeed,
  state: EmulatorState,
  now: () => number,
): Promise<RepoRecord> {
  const fullName = `${seed.owner}/${seed.name}`;
  const git = createGitRepo(path.join(dir, `${seed.owner}__${seed.name}.git`), now);
  const defaultBranch = seed.defaultBranch ?? "main";
  await git.init(defaultBranch);
  const sha = await git.commitFiles({
    parent: null,
    files: seed.files ?? { "README.md": `# ${seed.name}\n` },
    message: "Initial commit",
  });
  await git.updateRef(`refs/heads/${defaultBranch}`, sha);
  return {
    id: takeId(state),
    owner: seed.owner,
    name: seed.name,
    fullName,
    defaultBranch,
    installationId: seed.installationId ?? 4242,
    private: seed.private ?? false,
    git,
    workflows: new Map(),
  };
}

/** loom's App manifest: what the App asks for is what its installations hold. */
const APP_YML = fileURLToPath(new URL("../../app.yml", import.meta.url));

async function readAppYmlPermissions(): Promise<unknown> {
  const manifest = parse(await readFile(APP_YML, "utf8")) as { default_permissions?: unknown };
  return manifest.default_permissions;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const now = options.now ?? Date.now;
  const dir = await mkdtemp(path.join(tmpdir(), "github-emulator-"));
  const state = createEmulatorState({
    appPermissions: appTokenPermissions(options.appPermissions ?? (await readAppYmlPermissions())),
  });
  for (const seed of options.repos ?? [DEFAULT_REPO]) {
    const repo = await createRepo(dir, seed, state, now);
    state.repos.set(repo.fullName.toLowerCase(), repo);
  }
  const faults = createFaults();
  const webhooks = createWebhookSender(
    { url: options.webhookUrl ?? null, secret: options.webhookSecret ?? "emulator-secret" },
    faults,
    options.onDelivery,
  );
  const appSlug = options.appSlug ?? "loom";
  const botLogin = `${appSlug}[bot]`;
  const json = { url: "", appId: options.appId ?? 1, appSlug };
  const core = createCore({
    state,
    json,
    webhooks,
    now,
    botLogin,
    defaultRole: options.defaultRole ?? "read",
  });
  const runnerErrors: Error[] = [];
  const runs = createRunControl(core, runnerErrors);
  runs.setRunner(options.runner ?? null);
  const settings: EmulatorSettings = {
    refuseReturnRunDetails: false,
    checkResponses: true,
    maxDispatchInputs: 25,
    downloadUrlTtlMs: 60_000,
    ghes: options.ghes ?? false,
    contentLimits: [
      { limit: 80, windowMs: 60_000 },
      { limit: 500, windowMs: 3_600_000 },
    ],
    ...options.settings,
  };
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const handle = createRequestHandler({
    core,
    runs,
    routes: emulatorRoutes,
    faults,
    settings,
    requests,
    violations,
    writeTimes: new Map(),
  });
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      violations.push({
        method: req.method ?? "",
        path: req.url ?? "",
        kind: "server-error",
        errors: [String(error)],
      });
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  json.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const [login, role] of Object.entries(options.permissions ?? {})) {
    for (const repo of state.repos.values()) setRole(state, repo.fullName, login, role);
  }

  const repoOf = (fullName?: string): RepoRecord =>
    fullName ? core.requireRepo(fullName) : [...state.repos.values()][0]!;
  return {
    url: json.url,
    dir,
    botLogin,
    state,
    requests,
    violations,
    deliveries: webhooks.deliveries,
    faults,
    settings,
    runnerErrors,
    repo: repoOf,
    async deleteRepo(fullName) {
      const repo = core.requireRepo(fullName);
      state.repos.delete(repo.fullName.toLowerCase());
      await rm(repo.git.dir, { recursive: true, force: true });
    },
    as: (login, fullName) => createPerson(core, repoOf(fullName), login),
    setPermission: (login, role, fullName) => setRole(state, repoOf(fullName).fullName, login, role),
    cloneUrl: (fullName) => `${json.url}/${repoOf(fullName).fullName}.git`,
    runnerEnv(runId, permissions) {
      const run = runs.find(runId);
      const token = `ghs_job_${takeId(state)}`;
      const held = jobTokenPermissions(permissions);
      state.tokens.set(token, { kind: "job", repo: run.repo, runId, permissions: held, ended: false });
      const env = buildRunnerEnv({ url: json.url, run, token, now: now(), ghes: settings.ghes });
      state.runtimeTokens.set(env["ACTIONS_RUNTIME_TOKEN"] ?? "", run.id);
      return env;
    },
    tokenFor(login) {
      const token = `ghu_emulator_${login.replace(/[^\w-]/g, "_")}_${takeId(state)}`;
      state.tokens.set(token, { kind: "person", login });
      return token;
    },
    endJob: (token) => endJobToken(core, token),
    registerApp(manifest) {
      return registerApp(core, manifest);
    },
    setWebhookTarget(url, secret, fanOut) {
      if (Array.isArray(url)) {
        webhooks.target.url = null;
        webhooks.target.urls = [...url];
      } else {
        webhooks.target.url = url;
        delete webhooks.target.urls;
      }
      webhooks.target.duplicateEvery = fanOut?.duplicateEvery ?? 0;
      if (secret !== undefined) webhooks.target.secret = secret;
    },
    setRunner: (runner) => runs.setRunner(runner),
    runs: {
      find: (id) => runs.find(id),
      start: (id) => runs.start(id),
      complete: (id, conclusion) => runs.complete(id, conclusion),
      createOther: (input, fullName) => runs.createOther(repoOf(fullName), input),
    },
    addArtifact(runId, name, files, artifactOptions = {}) {
      const run = runs.find(runId);
      const at = now();
      const artifact: ArtifactRecord = {
        repo: run.repo,
        id: takeId(state),
        runId,
        name,
        zip: createZip(files),
        createdAt: at,
        expiresAt: at + (artifactOptions.retentionDays ?? 90) * 86_400_000,
      };
      state.artifacts.push(artifact);
      return artifact;
    },
    async refreshRefs(fullName) {
      const repo = repoOf(fullName);
      for (const pull of state.pulls.filter(
        (p) => p.repo === repo.fullName && p.state === "open" && p.headRepo === repo.fullName,
      )) {
        const tip = await repo.git.readBranch(pull.headRef);
        if (tip && tip !== pull.headSha)
          await core.announcePush(repo, pull.headRef, pull.headSha, tip, pull.user);
      }
    },
    async settle() {
      for (let round = 0; round < 10; round++) {
        await runs.settle();
        await webhooks.settle();
      }
    },
    assertNoViolations() {
      if (violations.length === 0) return;
      const lines = violations.map((v) => `${v.kind}: ${v.method} ${v.path}\n  ${v.errors.join("\n  ")}`);
      throw new Error(`the GitHub emulator saw ${violations.length} bad request(s):\n${lines.join("\n")}`);
    },
    async close() {
      await webhooks.settle().catch(() => undefined);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function setRole(state: EmulatorState, fullName: string, login: string, role: Role): void {
  const roles = state.permissions.get(fullName) ?? new Map<string, Role>();
  roles.set(login.toLowerCase(), role);
  state.permissions.set(fullName, roles);
}
