// Vitest configuration for mutation testing (`npm run test:mutation`): core's unit tests only.
// They need no database, Redis or devnet, so there is no globalSetup here (the root vitest.config.ts has one).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL(".", import.meta.url)),
    include: ["src/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
  },
});
