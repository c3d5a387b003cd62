import { defineConfig } from "vitest/config";

// Workspace packages export their TypeScript sources under the "agent-ledger-source" condition and their build output (dist/)
// by default (package.json "exports"; ARCHITECTURE.md → Build output). Tests run on the sources: vitest resolves
// with "agent-ledger-source", and so does every Node process a test spawns (NODE_OPTIONS is inherited), so no test ever runs a
// stale build.
if (!/--conditions[= ]agent-ledger-source\b/.test(process.env.NODE_OPTIONS ?? "")) {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, "--conditions=agent-ledger-source"].filter(Boolean).join(" ");
}

export default defineConfig({
  resolve: { conditions: ["agent-ledger-source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["agent-ledger-source", "module", "node", "development|production"], externalConditions: ["agent-ledger-source"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "e2e/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["./e2e/globalSetup.ts"],
  },
});
