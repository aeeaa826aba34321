import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  INPUTS_END,
  INPUTS_START,
  readInputsTables,
  renderInputsTables,
} from "../../scripts/inputs-table.ts";
import { ACTION, read, ROOT, STAGE, STAGE_OIDC } from "./workflow-yaml.ts";

const sources = { stage: read(STAGE), oidc: read(STAGE_OIDC), action: read(ACTION) };

describe("the configuration reference in docs/configuration.md", () => {
  it("matches the workflow and action files (regenerate: node scripts/print-inputs-table.ts)", () => {
    const page = read(join(ROOT, "docs", "configuration.md"));
    const copy = readInputsTables(page);
    assert.ok(copy !== null, `docs/configuration.md has the ${INPUTS_START} … ${INPUTS_END} markers`);
    assert.equal(copy, renderInputsTables(sources));
  });

  it("lists every input, secret and output of both stage workflows and the action", () => {
    const tables = renderInputsTables(sources);
    for (const name of [
      "runs-on",
      "timeout-minutes",
      "setup",
      "provider",
      "aws-role-arn",
      "gcp-workload-identity-provider",
      "CLAUDE_CODE_OAUTH_TOKEN",
      "cost-usd",
      "allowed_tools",
      "gcp_service_account",
      "cost_usd",
    ])
      assert.ok(tables.includes(`| \`${name}\` |`), name);
  });

  it("tells which workflow an input belongs to and escapes table syntax", () => {
    const tables = renderInputsTables(sources);
    assert.match(tables, /\| `runs-on` \| both \| `ubuntu-latest` \|/);
    assert.match(tables, /\| `aws-region` \| `loom-stage-oidc.yml` \|/);
    assert.match(tables, /\| `request` \| both \| required \|/);
    const withPipe = renderInputsTables({
      ...sources,
      action: "inputs:\n  x:\n    description: 'a | b'\noutputs: {}\n",
    });
    assert.ok(withPipe.includes("a \\| b"));
    assert.ok(tables.includes("workloadIdentityPools/&lt;pool>"), "placeholders are not HTML tags");
  });
});
