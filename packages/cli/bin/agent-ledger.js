#!/usr/bin/env node
// The `agent-ledger` command. Runs the build (dist/agent-ledger.js: `npm install` and `npm run build` make it; the
// published tarball ships it) unless Node resolves this repository's sources (--conditions=agent-ledger-source, as
// the tests' processes do): then src/main.ts through tsx, so tests never run a stale build. See docs/cli.md.
const fromSource = /agent-ledger-source/.test(`${process.env.NODE_OPTIONS ?? ""} ${process.execArgv.join(" ")}`);
if (fromSource) {
  const { tsImport } = await import("tsx/esm/api");
  await tsImport("../src/main.ts", import.meta.url);
} else {
  await import("../dist/agent-ledger.js");
}
