import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parsePlan } from "../src/plan/parse-plan.ts";
import { formatMs, measure } from "./measure.ts";
import { record } from "./targets.ts";

const corpus = fileURLToPath(new URL("../test/fixtures/corpus/plans/", import.meta.url));

/** A plan with `count` stages in layers of ten, each depending on two stages of the layer before. */
export function generatePlan(count: number): string {
  const lines = [
    "# Plan: generated",
    "",
    "<!-- loom METADATA -->",
    "",
    "```yaml",
    "loom:",
    "  version: 1",
    "  stages:",
  ];
  for (let i = 0; i < count; i++) {
    const layer = Math.floor(i / 10);
    const deps =
      layer === 0 ? [] : [`s${(layer - 1) * 10 + (i % 10)}`, `s${(layer - 1) * 10 + ((i + 1) % 10)}`];
    lines.push(
      `    - id: s${i}`,
      `      name: "Stage ${i}"`,
      `      description: "Implement part ${i} of the generated plan with its own tests"`,
      `      dependencies: [${deps.join(", ")}]`,
      `      acceptance:`,
      `        - "npm test -- part-${i}"`,
      `      files: ["src/part-${i}/**"]`,
    );
  }
  lines.push("```", "", "<!-- END loom METADATA -->", "");
  return lines.join("\n");
}

export function benchParse(): void {
  const inputs: [string, string][] = [];
  if (existsSync(corpus)) {
    for (const name of readdirSync(corpus)
      .filter((n) => n.endsWith(".md"))
      .sort()) {
      inputs.push([name, readFileSync(corpus + name, "utf8")]);
    }
  } else {
    console.log(`(corpus not found at ${corpus}: generated plans only)`);
  }
  for (const count of [50, 500]) inputs.push([`PLAN-generated-${count}.md`, generatePlan(count)]);
  // The careful column reads every plan with the `yaml` library alone (positions of every node), as
  // loom did before the fast reader: the ratio is what the fast read saves on that plan.
  console.log("| plan | bytes | stages | median | p90 | runs | careful reader median |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const [name, text] of inputs) {
    const result = parsePlan(`doc/plans/${name}`, text);
    const stages = result.ok ? result.plan.stages.length : "invalid";
    const m = measure(() => parsePlan(`doc/plans/${name}`, text), { minRuns: 10, minMs: 300 });
    const careful = measure(() => parsePlan(`doc/plans/${name}`, text, { reader: "careful" }), {
      minRuns: 10,
      minMs: 300,
    });
    console.log(
      `| ${name} | ${text.length} | ${stages} | ${formatMs(m.medianMs)} | ${formatMs(m.p90Ms)} | ${m.runs} | ${formatMs(careful.medianMs)} |`,
    );
    if (name === "PLAN-generated-500.md")
      record("parse", { value: formatMs(m.medianMs), pass: m.medianMs <= 50 });
  }
}
