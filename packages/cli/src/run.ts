import { helpText, parseCommandLine, type ParsedCommandLine } from "./args.ts";
import { ApiCallError, createApiClient } from "@agent-ledger/client";
import { feed } from "./commands/feed.ts";
import { pair } from "./commands/pair.ts";
import { pay, revoke, status } from "./commands/session.ts";
import { webhooks } from "./commands/webhooks.ts";
import { configDir, createCredentialStore, emptyCredentials, resolveApi } from "./config.ts";
import type { Context, Io } from "./context.ts";
import { cliErrorOf } from "./cliErrorOf.ts";
import { CliError, EXIT } from "./exitCodes.ts";
import { USER_AGENT } from "./userAgent.ts";
import { VERSION } from "./version.ts";

/**
 * Runs one command line and returns the exit code (never throws, never calls process.exit). Errors are printed to
 * stderr: a line of text, or with --json `{ "error": { code, message, status?, hint? } }`.
 */
export async function run(argv: readonly string[], io: Io, signal: AbortSignal = new AbortController().signal): Promise<number> {
  let parsed: ParsedCommandLine | undefined;
  const json = argv.includes("--json");
  try {
    parsed = parseCommandLine(argv);
    if (parsed.global.version) return (io.stdout.write(`${VERSION}\n`), EXIT.OK);
    if (parsed.global.help || parsed.command === null) {
      io.stdout.write(helpText(parsed.command, VERSION));
      return parsed.global.help ? EXIT.OK : EXIT.USAGE;
    }
    const store = createCredentialStore(configDir(io.env));
    let credentials;
    try {
      credentials = await store.read();
    } catch (error) {
      if (parsed.command !== "pair") throw new CliError(EXIT.ERROR, (error as Error).message);
      credentials = emptyCredentials(); // pairing rewrites the file
    }
    for (const w of store.warnings) io.stderr.write(`warning: ${w}\n`);
    const api = resolveApi(parsed.global.api, io.env, credentials);
    const ctx: Context = {
      io,
      json: parsed.global.json,
      api,
      client: createApiClient({ baseUrl: api, headers: { "user-agent": USER_AGENT } }),
      store,
      credentials,
      signal,
      options: parsed.options,
      args: parsed.args,
    };
    const [group, sub] = parsed.command.split(" ");
    switch (group) {
      case "pair":
        return await pair(ctx);
      case "pay":
        return await pay(ctx);
      case "status":
        return await status(ctx);
      case "revoke":
        return await revoke(ctx);
      case "feed":
        return await feed(ctx);
      case "webhooks":
        return await webhooks(ctx, sub!);
      case "mcp": // loaded only here: the MCP SDK stays out of every other command's start-up
        return await (await import("./commands/mcp.ts")).mcp(ctx);
      default:
        throw new CliError(EXIT.USAGE, `unknown command ${parsed.command}`);
    }
  } catch (error) {
    if (signal.aborted) {
      if (!json) io.stderr.write("\ninterrupted\n");
      return EXIT.INTERRUPTED;
    }
    const e =
      error instanceof CliError
        ? error
        : error instanceof ApiCallError
          ? cliErrorOf(error)
          : new CliError(EXIT.ERROR, error instanceof Error ? error.message : String(error), { code: "internal" });
    if (error instanceof ApiCallError && error.status === 429 && error.retryAfterSeconds !== null && !e.details.hint)
      e.details.hint = `try again in ${error.retryAfterSeconds} s`;
    if (json) {
      const body: Record<string, unknown> = { code: e.details.code ?? "error", message: e.message };
      if (e.details.status !== undefined) body.status = e.details.status;
      if (e.details.hint) body.hint = e.details.hint;
      body.exit_code = e.exitCode;
      io.stderr.write(`${JSON.stringify({ error: body })}\n`);
    } else {
      const where = error instanceof ApiCallError && error.status !== 0 ? ` [${error.status} ${error.code}]` : "";
      io.stderr.write(`error: ${e.message}${where}\n`);
      if (e.details.hint) io.stderr.write(`hint: ${e.details.hint}\n`);
      if (!(error instanceof CliError) && !(error instanceof ApiCallError) && error instanceof Error && io.env.AGENT_LEDGER_DEBUG === "1")
        io.stderr.write(`${error.stack}\n`);
    }
    return e.exitCode;
  }
}
