// @agent-ledger/cli — the `agent-ledger` command. The library surface is for tests and embedding.
export { run } from "./run.ts";
export { parseCommandLine, helpText, COMMANDS, GLOBAL_OPTIONS, type ParsedCommandLine } from "./args.ts";
export { parseAmount, parseBaseUnits, formatAmount, tokenName, TOKEN_DECIMALS } from "./amount.ts";
export { memoProblem } from "./memo.ts";
export { configDir, createCredentialStore, normalizeApiUrl, resolveApi, DEFAULT_API, type CredentialsFile, type StoredSession } from "./config.ts";
export { EXIT, CliError, UsageError, exitCodeForApiError, type ExitCode } from "./exitCodes.ts";
export { payRequest } from "./commands/session.ts";
export { webhookCreateRequest } from "./commands/webhooks.ts";
export { formatFeedRow } from "./commands/feed.ts";
export type { Io } from "./context.ts";
