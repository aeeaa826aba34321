import { startEmulator, type Emulator } from "../emulator/start-emulator.ts";

/**
 * An emulator whose repository `acme/widgets` holds `workflows` under `.github/workflows/` and
 * `files`, on `main`: for running workflow files without the App.
 */
export function startWorkflowEmulator(
  workflows: Record<string, string>,
  files: Record<string, string> = {},
): Promise<Emulator> {
  return startEmulator({
    repos: [
      {
        owner: "acme",
        name: "widgets",
        files: {
          "README.md": "# widgets\n",
          ...files,
          ...Object.fromEntries(
            Object.entries(workflows).map(([name, text]) => [`.github/workflows/${name}`, text]),
          ),
        },
      },
    ],
  });
}
