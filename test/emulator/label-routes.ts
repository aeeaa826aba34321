import { checkLabel, createLabelRecord, findLabel, repoLabelJson, repoLabels } from "./repo-labels.ts";
import { fail, ok, paginate, readString, type Reply, type Routes } from "./route-reply.ts";

/** Repository labels: `POST/GET /repos/{o}/{r}/labels`, `GET …/labels/{name}`. */

function validationFailed(errors: unknown[]): Reply {
  return {
    status: 422,
    body: {
      message: "Validation Failed",
      errors,
      documentation_url: "https://docs.github.com/rest/issues/labels#create-a-label",
      status: "422",
    },
  };
}

export const labelRoutes: Routes = {
  "issues/create-label": (request) => {
    const { core, repo } = request;
    const input = {
      name: readString(request.body, "name") ?? "",
      color: readString(request.body, "color"),
      description: readString(request.body, "description"),
    };
    // GitHub: 422 `already_exists` when the name is taken (ignoring case), `invalid` for a bad field.
    const refusal = checkLabel(core.state, repo, input);
    if (refusal) return validationFailed([refusal]);
    return ok(repoLabelJson(core.json, createLabelRecord(core.state, repo, input)), 201);
  },
  "issues/get-label": (request) => {
    const label = findLabel(request.core.state, request.repo, request.params["name"] ?? "");
    return label ? ok(repoLabelJson(request.core.json, label)) : fail(404, "Not Found");
  },
  "issues/list-labels-for-repo": (request) => {
    const { core, repo } = request;
    const page = paginate(
      request,
      repoLabels(core.state).filter((l) => l.repo === repo.fullName),
    );
    return { status: 200, body: page.items.map((l) => repoLabelJson(core.json, l)), headers: page.headers };
  },
};
