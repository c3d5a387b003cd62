import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The one vitest configuration: the root vitest.config.ts (every package's tests, for `npx vitest run <file>` from the
// root) and each package's vitest.config.ts (`npm test -w <package>`, what turbo runs per package) call defineTestConfig.

// Workspace packages export their TypeScript sources under the "agent-ledger-source" condition and their build output (dist/)
// by default (package.json "exports"; ARCHITECTURE.md → Build output). Tests run on the sources: vitest resolves
// with "agent-ledger-source", and so does every Node process a test spawns (NODE_OPTIONS is inherited), so no test ever runs a
// stale build.
if (!/--conditions[= ]agent-ledger-source\b/.test(process.env.NODE_OPTIONS ?? "")) {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, "--conditions=agent-ledger-source"].filter(Boolean).join(" ");
}

/** Once per test run: the migrated template database every test file copies, and the web assets (vitest.globalSetup.ts). */
export const GLOBAL_SETUP = fileURLToPath(new URL("./vitest.globalSetup.ts", import.meta.url));

/** A package's tests: unit tests beside their code in src/, integration tests in test/. */
export const PACKAGE_TESTS = ["src/**/*.test.ts", "test/**/*.test.ts"];

/** The test configuration for the folder `root` (a package's directory, or the repository root) and its test files. */
export function defineTestConfig(root: string, include: string[] = PACKAGE_TESTS) {
  return defineConfig({
    root,
    resolve: { conditions: ["agent-ledger-source", "module", "browser", "development|production"] },
    ssr: { resolve: { conditions: ["agent-ledger-source", "module", "node", "development|production"], externalConditions: ["agent-ledger-source"] } },
    test: {
      include,
      pool: "forks",
      testTimeout: 60_000,
      hookTimeout: 120_000,
      globalSetup: [GLOBAL_SETUP],
    },
  });
}
