import type { ModelScript } from "./runner/create-stage-runner.ts";
import { planText, resolveConflict, rewriteFile, scriptStages, writeFiles } from "./model-script.ts";

export type SamplePlan = { path: string; id: string; text: string; script: ModelScript };

/** A diamond where every stage writes its own file: `a`, then `b` and `c` in parallel, then `d`. */
export const DIAMOND_PLAN: SamplePlan = {
  path: "doc/plans/PLAN-diamond.md",
  id: "PLAN-diamond",
  text: planText(
    "Diamond",
    `
- id: a
  name: Foundation
  description: Write a.txt, the base every other stage builds on
  acceptance: ["grep -q alpha a.txt"]
- id: b
  name: Left
  description: Write b.txt next to a.txt
  dependencies: [a]
  acceptance: ["grep -q beta b.txt"]
- id: c
  name: Right
  description: Write c.txt next to a.txt
  dependencies: [a]
  acceptance: ["grep -q gamma c.txt"]
- id: d
  name: Join
  description: Write d.txt once a, b and c are in
  dependencies: [b, c]
  acceptance: ["cat a.txt b.txt c.txt d.txt"]
`,
  ),
  script: scriptStages({
    a: writeFiles({ "a.txt": "alpha\n" }),
    b: writeFiles({ "b.txt": "beta\n" }),
    c: writeFiles({ "c.txt": "gamma\n" }),
    d: writeFiles({ "d.txt": "delta\n" }),
  }),
};

export const CLASH_BASE = "title\nvalue = base\nend\n";
export const CLASH_RESOLVED = "title\nvalue = left and right\nend\n";

/**
 * A diamond with a conflict: `a` writes settings.txt; `left` and `right` run in parallel and both
 * rewrite its second line, so whichever merges second gets a 409 and a merge session; `join` runs
 * once both are merged.
 */
export const CLASH_PLAN: SamplePlan = {
  path: "doc/plans/PLAN-clash.md",
  id: "PLAN-clash",
  text: planText(
    "Clash",
    `
- id: a
  name: Settings file
  description: Write settings.txt with a base value on its second line
  acceptance: ["grep -q 'value = base' settings.txt"]
- id: left
  name: Left value
  description: Set the value on line two to left
  dependencies: [a]
  acceptance: ["grep -q 'value = left' settings.txt"]
- id: right
  name: Right value
  description: Set the value on line two to right
  dependencies: [a]
  acceptance: ["grep -q 'right' settings.txt"]
- id: join
  name: Join
  description: Check both values made it
  dependencies: [left, right]
  acceptance: ["grep -q 'left and right' settings.txt"]
`,
  ),
  script: scriptStages({
    a: writeFiles({ "settings.txt": CLASH_BASE }),
    left: rewriteFile("settings.txt", "title\nvalue = left\nend\n"),
    right: rewriteFile("settings.txt", "title\nvalue = right\nend\n"),
    "left:merge": resolveConflict("settings.txt", CLASH_RESOLVED),
    "right:merge": resolveConflict("settings.txt", CLASH_RESOLVED),
    join: writeFiles({ "join.txt": "joined\n" }),
  }),
};

/**
 * A diamond whose stages declare the paths they touch (`files`; b's under `b/`), so a push or a
 * re-run affects the stages whose paths it changed: the plan of the re-run tests.
 */
export const FILES_DIAMOND = {
  path: "doc/plans/PLAN-diamond.md",
  text: planText(
    "Diamond",
    `
- id: a
  name: Foundation
  description: Write a.txt, the base every other stage builds on
  files: ["a.txt"]
  acceptance: ["grep -q alpha a.txt"]
- id: b
  name: Left
  description: Write b/b.txt next to a.txt
  dependencies: [a]
  files: ["b/**"]
  acceptance: ["grep -q beta b/b.txt"]
- id: c
  name: Right
  description: Write c.txt next to a.txt
  dependencies: [a]
  files: ["c.txt"]
  acceptance: ["grep -q gamma c.txt"]
- id: d
  name: Join
  description: Write d.txt once a, b and c are in
  dependencies: [b, c]
  files: ["d.txt"]
  acceptance: ["cat a.txt b/b.txt c.txt d.txt"]
`,
  ),
};
