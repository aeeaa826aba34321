// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Modules the pure core must never import: I/O, the clock's owners, GitHub and Actions clients. */
const ioModules = [
  "node:*",
  "fs",
  "fs/*",
  "path",
  "os",
  "child_process",
  "http",
  "https",
  "net",
  "crypto",
  "probot",
  "probot/*",
  "@octokit/*",
  "@actions/*",
  "pg",
  "pino",
  "nock",
];

export default tseslint.config(
  { ignores: ["node_modules/", "action/dist/", "coverage/", "test/fixtures/", "reports/", ".stryker-tmp/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["eslint.config.js", "app/start.js", "bin/*.js"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use an `as const` list and a union instead of enum." },
        {
          selector: "CatchClause[body.body.length=0]",
          message: "No empty catch: handle, log or rethrow with cause.",
        },
      ],
    },
  },
  {
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ioModules,
              message: "src/ is the pure core: no I/O. Pass data in from app/, action/ or bin/.",
            },
          ],
        },
      ],
      "no-restricted-globals": [
        "error",
        { name: "process", message: "src/ reads no environment: take values as parameters." },
        { name: "fetch", message: "src/ does no I/O." },
        { name: "setTimeout", message: "src/ has no timers: times arrive inside events." },
        { name: "setInterval", message: "src/ has no timers: times arrive inside events." },
        { name: "console", message: "src/ does not print: return values." },
      ],
      "no-restricted-properties": [
        "error",
        { object: "Date", property: "now", message: "src/ reads no clock: times arrive inside events." },
        { object: "Math", property: "random", message: "src/ is deterministic: no randomness." },
      ],
    },
  },
  {
    // The plain JavaScript entries that refuse an old Node.js before any TypeScript loads.
    files: ["app/start.js", "bin/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-floating-promises": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
);
