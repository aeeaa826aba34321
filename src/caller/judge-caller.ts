import type { LoomRelease } from "../release/loom-releases.ts";
import { MAIN_CONTRACT, STAGE_CONTRACTS } from "../release/stage-contract.ts";
import type { CallerVerdict } from "./caller-verdict.ts";
import { parseCallerWorkflow } from "./parse-caller-workflow.ts";
import type { CallerGrants, CallerWorkflow } from "./parse-caller-workflow.ts";
import {
  listNeededGrants,
  pickTargetRelease,
  quoteCode,
  quoteUsesLine,
  renderPinFix,
} from "./render-caller-fix.ts";

/** The caller workflow as read from the default branch: missing, too large to read (`text` null), or its text. */
export type CallerRead = { path: string; branch: string } & (
  { found: false } | { found: true; text: string | null }
);

const RANK: Readonly<Record<string, number>> = { none: 0, read: 1, write: 2 };

/** The scopes `granted` falls short of in `needed`, as `scope: level`; none when the caller sets no permissions. */
function findMissingGrants(granted: CallerGrants, needed: Record<string, string>): string[] {
  if (granted === null || granted === "write-all") return [];
  return Object.entries(needed)
    .filter(([scope, level]) => {
      const has =
        granted === "read-all" ? (scope === "id-token" ? "none" : "read") : (granted[scope] ?? "none");
      return (RANK[has] ?? 0) < (RANK[level] ?? 0);
    })
    .map(([scope, level]) => `${scope}: ${level}`);
}

/** The release a ref names: its commit (full SHA) or its tag `v<version>`. */
function findRelease(ref: string | null, releases: readonly LoomRelease[]): LoomRelease | null {
  if (ref === null) return null;
  const sha = ref.toLowerCase();
  return releases.find((release) => release.sha === sha || `v${release.version}` === ref) ?? null;
}

/** The inputs the dispatch would be refused for: ones the App sends but the caller lacks, ones it requires that the App never sends. */
function checkInputs(caller: CallerWorkflow): string | null {
  const sent: readonly string[] = STAGE_CONTRACTS[MAIN_CONTRACT].dispatchInputs;
  const missing = sent.filter((name) => caller.inputs[name] === undefined);
  const extra = Object.entries(caller.inputs)
    .filter(([name, spec]) => spec.required && !sent.includes(name))
    .map(([name]) => name);
  const problems = [
    ...(missing.length === 0 ? [] : [`declares no \`workflow_dispatch\` input ${missing.join(", ")}`]),
    ...(extra.length === 0 ? [] : [`requires the input ${extra.join(", ")}, which loom never sends`]),
  ];
  return problems.length === 0 ? null : `${problems.join(" and ")} (loom sends ${sent.join(", ")})`;
}

function refuse(reason: string, fix: string): CallerVerdict {
  return {
    kind: "refused",
    reason,
    note: `**loom cannot run this plan's stages:** ${reason}. Nothing was dispatched.\n\n${fix}\n\nloom reads the caller again when the default branch changes and starts the plan then.`,
  };
}

/**
 * Decides how loom serves the repository's caller workflow (see `CallerVerdict`): the pinned ref is
 * looked up in `releases` (by commit or `v<version>` tag), the dispatch inputs are checked against
 * what this App sends, and the calling job's permissions against what that release's stage
 * workflow asks for. Every refusal and note names the caller line loom read and the pin to move to.
 */
export function judgeCaller(read: CallerRead, releases: readonly LoomRelease[]): CallerVerdict {
  const target = pickTargetRelease(releases);
  const where = `\`${read.path}\``;
  if (!read.found || read.text === null) {
    const why = read.found ? "is larger than 1 MiB" : `is not on the default branch \`${read.branch}\``;
    return refuse(
      `the caller workflow ${where} ${why}`,
      `Add it (as the quick start's caller, \`examples/loom.yml\` in loom): ${renderPinFix(target, "loom-stage.yml", read.path)}`,
    );
  }
  const parsed = parseCallerWorkflow(read.text);
  if (!parsed.ok) {
    const at = parsed.line === null ? "" : ` (line ${parsed.line})`;
    return refuse(
      `the caller workflow ${where} cannot be used: ${parsed.problem}${at}`,
      renderPinFix(target, "loom-stage.yml", read.path),
    );
  }
  const { caller } = parsed;
  const { uses } = caller;
  const quoted = quoteUsesLine(read.path, uses);
  const fix = renderPinFix(target, uses.workflow, read.path);
  const inputs = checkInputs(caller);
  if (inputs !== null) return refuse(`the caller workflow ${where} ${inputs}`, `Read: ${quoted}.\n\n${fix}`);
  const release = findRelease(uses.ref, releases);
  if (release === null) {
    const what =
      uses.ref === null
        ? "calls this repository's own copy of the stage workflow"
        : `pins ${quoteCode(uses.ref, 100)}, which is no release commit loom knows (a branch, a tag, a fork's own commit)`;
    return {
      kind: "unknown",
      note: `**Caller:** ${quoted} ${what}: loom cannot tell which contract it speaks, so it serves it the way every stage workflow from loom 0.3 on accepts, creating each stage branch before its first run (a read and a write more per stage). ${fix}`,
    };
  }
  const contract = STAGE_CONTRACTS[release.contract];
  if (contract.served === "no")
    return refuse(
      `the caller workflow ${where} pins loom ${release.version}, which this App cannot serve: ${contract.why}`,
      `Read: ${quoted}.\n\n${fix}`,
    );
  const missing = findMissingGrants(caller.grants, listNeededGrants(release, uses.workflow));
  if (missing.length > 0)
    return refuse(
      `the job of ${where} that calls loom ${release.version}'s stage workflow does not grant ${missing.join(", ")}, which its jobs ask for (GitHub fails such a run at startup)`,
      `Read: ${quoted}.\n\n${release.contract === MAIN_CONTRACT ? renderPinFix(release, uses.workflow, read.path) : fix}`,
    );
  if (contract.served === "as-is") return { kind: "current", release: release.version };
  const newest =
    target === null || target.sha === release.sha
      ? `No release of loom speaks this App's contract (${MAIN_CONTRACT}) yet: the cost stays until one is cut.`
      : fix;
  return {
    kind: "older",
    release: release.version,
    note: `**Caller:** ${quoted} pins loom ${release.version} (contract ${contract.version}); loom serves it, but ${contract.why}. ${newest}`,
  };
}
