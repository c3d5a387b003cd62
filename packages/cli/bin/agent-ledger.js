#!/usr/bin/env node
// Development launcher: runs src/main.ts through tsx (the repository's tests spawn this). The published command is
// dist/agent-ledger.js, built by scripts/build.ts (`npm run build`); see docs/cli.md.
import { tsImport } from "tsx/esm/api";

await tsImport("../src/main.ts", import.meta.url);
