import { renderDynamicSection } from "./dynamic-section.ts";
import { renderRecitationSection } from "./recitation-section.ts";
import { resolveStageType } from "./resolve-stage-type.ts";
import { renderSemiStableSection } from "./semi-stable-section.ts";
import type { SignalInput } from "./signal-input.ts";
import { renderStablePrefix } from "./stable-prefix.ts";

export type SignalSections = {
  stable: string;
  semiStable: string;
  dynamic: string;
  recitation: string;
};

/** The four sections of a signal, each ending in a newline. */
export function buildSignalSections(input: SignalInput): SignalSections {
  return {
    stable: renderStablePrefix(input.kind, resolveStageType(input.stage)),
    semiStable: renderSemiStableSection(
      input.plan,
      input.stage,
      input.knowledge,
      input.networkUnenforced !== true,
    ),
    dynamic: renderDynamicSection(input),
    recitation: renderRecitationSection(input),
  };
}

/**
 * The prompt a stage session gets: stable prefix (per stage type), semi-stable (knowledge,
 * learnings, sandbox rules), dynamic (target, assignment, dependencies, handoff, checks, files),
 * recitation (immediate tasks, context warnings), in that order.
 */
export function buildSignal(input: SignalInput): string {
  const s = buildSignalSections(input);
  return [s.stable, s.semiStable, s.dynamic, s.recitation].join("\n");
}
