#!/usr/bin/env node
// agent-ledger: runs src/main.ts through tsx (no build step). See docs/cli.md.
import { tsImport } from "tsx/esm/api";

await tsImport("../src/main.ts", import.meta.url);
