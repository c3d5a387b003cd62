import { defineTestConfig } from "../vitest.base.ts";

// Flows that cross packages (ARCHITECTURE.md → Where code goes): every test file in this folder.
export default defineTestConfig(import.meta.dirname, ["**/*.test.ts"]);
