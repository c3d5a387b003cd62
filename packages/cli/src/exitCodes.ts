/** Exit codes of `agent-ledger` (documented in docs/cli.md; scripts rely on them). */
export const EXIT = {
  /** Success. */
  OK: 0,
  /** Any other error: the server failed (5xx, payment_failed), an unknown id, an unexpected answer. */
  ERROR: 1,
  /** Bad command line or bad input (also the server's 400 answers): nothing was done. */
  USAGE: 2,
  /** Not paired with this API, or the server does not know the token (401): run `agent-ledger pair`. */
  UNAUTHORIZED: 3,
  /** Refused by the session's rules: per-call or total cap exceeded, session not authorized on chain yet (403). */
  FORBIDDEN: 4,
  /** Ended: the session expired or was revoked, or the pairing code expired before approval. Pair again. */
  EXPIRED: 5,
  /** The API could not be reached (connection refused, DNS, timeout): retrying later may help. */
  UNREACHABLE: 6,
  /** `pay`: the payment was broadcast but its outcome is not known yet; re-run with the printed --idempotency-key. */
  PENDING: 7,
  /** Interrupted (Ctrl-C). */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends the command with a specific exit code and a message for the person. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    readonly details: { code?: string; status?: number; hint?: string } = {},
  ) {
    super(message);
    this.name = "CliError";
  }
}

export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(EXIT.USAGE, message, { code: "usage", hint });
    this.name = "UsageError";
  }
}

/** The exit code for an API error answer (status + `error.code`). */
export function exitCodeForApiError(status: number, code: string): ExitCode {
  if (status === 401) return EXIT.UNAUTHORIZED;
  if (code === "session_expired" || code === "session_revoked" || code === "code_expired" || status === 410) return EXIT.EXPIRED;
  if (status === 403) return EXIT.FORBIDDEN;
  if (status === 400 || status === 422) return EXIT.USAGE;
  return EXIT.ERROR;
}
