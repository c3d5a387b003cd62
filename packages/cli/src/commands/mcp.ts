import { USER_AGENT } from "../userAgent.ts";
import { note, type Context } from "../context.ts";
import { EXIT } from "../exitCodes.ts";

/**
 * `agent-ledger mcp`: the Agent Ledger MCP server on stdio (JSON-RPC on stdin/stdout; notes go to stderr). Its tools
 * call the API this command resolves (`--api`, `$AGENT_LEDGER_API`, the last pairing) with the stored session's token;
 * without a pairing only the ledger tools work. Runs until stdin closes or the process is signalled. Loaded lazily
 * by run.ts, so other commands never load the MCP SDK.
 */
export async function mcp(ctx: Context): Promise<number> {
  const session = ctx.credentials.sessions[ctx.api] ?? null;
  note(
    ctx,
    session
      ? `agent-ledger mcp: serving ${ctx.api} as ${session.agent_label ?? "the paired agent"} (session expires ${session.expires_at})`
      : `agent-ledger mcp: serving ${ctx.api}, not paired: ledger tools only (run \`agent-ledger pair\` for the wallet and webhook tools)`,
  );
  const [{ answerMalformedMessages, createLedgerMcpServer }, { StdioServerTransport }] = await Promise.all([
    import("@agent-ledger/mcp"),
    import("@modelcontextprotocol/sdk/server/stdio.js"),
  ]);
  const server = createLedgerMcpServer({
    api: { baseUrl: ctx.api, bearer: session?.access_token ?? null, headers: { "user-agent": `${USER_AGENT} mcp` } },
    authHint: "run `agent-ledger pair` on this machine (pairing stays a person's approval), then restart the MCP server",
  });
  const transport = new StdioServerTransport();
  answerMalformedMessages(transport); // -32700 / -32600 for a line that is not a message, instead of silence
  const done = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    ctx.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await server.connect(transport);
  server.server.onclose = () => undefined;
  await done;
  await server.close();
  return EXIT.OK;
}
