// Entry of the `agent-ledger` command (bundled into dist/agent-ledger.js by scripts/build.ts; bin/agent-ledger.js runs it through tsx in development).
import { openBrowser } from "./openBrowser.ts";
import { run } from "./run.ts";

const controller = new AbortController();
let interrupts = 0;
const onSignal = () => {
  if (++interrupts > 1) process.exit(130); // a second Ctrl-C: leave now
  controller.abort(new Error("interrupted"));
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const code = await run(
  process.argv.slice(2),
  {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    openBrowser: (url) => openBrowser(url),
    interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
  },
  controller.signal,
);
process.exitCode = code;
// Let stdout drain, then leave even if a stray handle (an idle keep-alive socket) would keep the loop alive.
process.stdout.write("", () => setTimeout(() => process.exit(code), 10).unref());
