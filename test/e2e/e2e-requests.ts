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
export type Merge = { index: number; base: string; head: string; status: number; at: number };

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
    return [
      {
        index,
        base: String(body["base"]),
        head: String(body["head"]),
        status: request.status,
        at: request.at,
      },
    ];
  });
}
