import { LedgerError } from "@agent-ledger/core";

export type CallbackRefusal = "invalid_callback_url" | "callback_url_not_https" | "callback_url_unresolvable" | "callback_url_forbidden";

/** A callback URL the SSRF policy refuses (at create time or at connect time). */
export class CallbackNotAllowedError extends LedgerError {
  declare readonly code: CallbackRefusal;
  constructor(code: CallbackRefusal, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = "CallbackNotAllowedError";
  }
}
