import { defineTestConfig } from "../../vitest.base.ts";

export default defineTestConfig(import.meta.dirname);
