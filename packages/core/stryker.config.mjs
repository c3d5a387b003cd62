// Mutation testing of @agent-ledger/core: `npm run test:mutation` at the repository root runs
// `stryker run packages/core/stryker.config.mjs` there, so every path below is relative to the repository root
// (the sandbox needs tsconfig.base.json beside packages/). See README.md, "Tests", for the score and
// packages/core/mutation-survivors.md for the mutants that survive on purpose.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "packages/core/vitest.mutation.config.ts" },
  mutate: ["packages/core/src/**/*.ts", "!packages/core/src/**/*.test.ts"],
  // Copy only core (and the base tsconfig it extends) into the sandbox; node_modules is linked, not copied.
  ignorePatterns: ["/*", "!/packages", "!/tsconfig.base.json", "/packages/*", "!/packages/core", "/packages/core/reports"],
  coverageAnalysis: "perTest",
  // The machine is shared (2 cores, other test runs): one test runner at a time.
  concurrency: 1,
  timeoutMS: 20_000,
  // Results of unchanged mutants and tests are reused from the previous run. The incremental file is not
  // committed (it changes with every run and describes one working tree): a fresh clone runs every mutant once;
  // `npm run test:mutation -- --force` re-runs every mutant.
  incremental: true,
  incrementalFile: "packages/core/reports/mutation/stryker-incremental.json",
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: "packages/core/reports/mutation/index.html" },
  jsonReporter: { fileName: "packages/core/reports/mutation/mutation.json" },
  tempDirName: "packages/core/reports/mutation/.stryker-tmp",
  cleanTempDir: "always",
  thresholds: { high: 95, low: 90, break: 90 },
};
