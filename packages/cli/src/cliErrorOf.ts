import type { ApiCallError } from "@agent-ledger/client";
import { CliError, EXIT, exitCodeForApiError } from "./exitCodes.ts";

/** The CLI's view of a failed API call: its exit code, message, code and status (no answer at all: exit 6). */
export function cliErrorOf(error: ApiCallError): CliError {
  if (error.status === 0)
    return new CliError(EXIT.UNREACHABLE, error.message, { code: "unreachable", hint: "is the API running? set --api or AGENT_LEDGER_API" });
  return new CliError(exitCodeForApiError(error.status, error.code), error.message, { code: error.code, status: error.status });
}
