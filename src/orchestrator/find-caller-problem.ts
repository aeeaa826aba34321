import { LOOM_RELEASES } from "../release/loom-releases.ts";
import { STAGE_CONTRACTS } from "../release/stage-contract.ts";
import type { SessionKind } from "../stage/stage-status.ts";
import type { Settings } from "./events.ts";

/**
 * Why the caller workflow cannot run a session of `kind`, or null: it pins a release loom knows
 * whose action has no such kind (it would refuse the dispatch's inputs); `cannot` says what its
 * stage workflow cannot do. A caller loom cannot place (`unknown`) is given the chance.
 */
export function findCallerProblem(
  caller: Settings["caller"],
  kind: SessionKind,
  cannot: string,
): string | null {
  if (caller?.kind !== "older") return null;
  const release = LOOM_RELEASES.find((known) => known.version === caller.release);
  if (release === undefined || STAGE_CONTRACTS[release.contract].sessionKinds.includes(kind)) return null;
  return `the caller workflow pins loom ${caller.release}, whose stage workflow ${cannot}: move its pin to the newest release (the plan's check run shows the lines to paste)`;
}
