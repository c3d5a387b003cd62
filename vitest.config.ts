import { defineTestConfig } from "./vitest.base.ts";

// Every package's tests from the repository root: `npx vitest run <file>…` runs any test file from here. `npm test` runs
// each package's own vitest.config.ts through turbo instead (turbo.json).
export default defineTestConfig(import.meta.dirname, [
  "packages/*/src/**/*.test.ts",
  "packages/*/test/**/*.test.ts",
  "e2e/**/*.test.ts",
  "tooling/**/*.test.ts",
]);
