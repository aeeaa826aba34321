import type { RecordedRequest } from "../emulator/handle-request.ts";

export type { PullRecord } from "../emulator/emulator-state.ts";

export type Dispatch = {
  index: number;
  stageId: string;
  kind: string;
  attempt: string;
  key: string;
  at: number;
};
/** `head`: the stage branch; `sha`: the commit sent as the merge's head when loom merged by SHA. */
export type Merge = {
  index: number;
  base: string;
  head: string;
  sha: string | null;
  status: number;
  at: number;
};

function bodyOf(request: RecordedRequest): Record<string, unknown> {
  return typeof request.body === "object" && request.body !== null
    ? (request.body as Record<string, unknown>)
    : {};
}

/** Workflow dispatches GitHub accepted, in order, with the stage they start. */
export function dispatchesOf(requests: readonly RecordedRequest[]): Dispatch[] {
  return requests.flatMap((request, index) => {
    if (request.operationId !== "actions/create-workflow-dispatch" || request.status >= 300) return [];
    const inputs = (bodyOf(request)["inputs"] ?? {}) as Record<string, string>;
    return [
      {
        index,
        stageId: inputs["stage_id"] ?? "",
        kind: inputs["kind"] ?? "",
        attempt: inputs["attempt"] ?? "",
        key: inputs["key"] ?? "",
        at: request.at,
      },
    ];
  });
}

/** `POST …/merges` requests, in order, with GitHub's answer (201 merged, 204 nothing, 409 conflict). */
export function mergesOf(requests: readonly RecordedRequest[]): Merge[] {
  return requests.flatMap((request, index) => {
    if (request.operationId !== "repos/merge") return [];
    const body = bodyOf(request);
    const head = String(body["head"]);
    // loom merges the checked commit by SHA and names its stage branch in the message.
    const named = /^Stage branch (\S+) at ([0-9a-f]{40,64}) \(checked\)$/m.exec(
      typeof body["commit_message"] === "string" ? body["commit_message"] : "",
    );
    const bySha = /^[0-9a-f]{40,64}$/.test(head);
    return [
      {
        index,
        base: String(body["base"]),
        head: bySha && named?.[2] === head ? (named[1] ?? head) : head,
        sha: bySha ? head : null,
        status: request.status,
        at: request.at,
      },
    ];
  });
}

/** The merges of stage `stage` of PLAN-diamond on pull request #1 GitHub answered as merged (201) or with nothing to merge (204). */
export function mergesOfStage(requests: readonly RecordedRequest[], stage: string): Merge[] {
  return mergesOf(requests).filter(
    (m) => m.head === `loom/pr-1/PLAN-diamond/${stage}` && (m.status === 201 || m.status === 204),
  );
}
