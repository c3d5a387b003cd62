import type { IncomingMessage } from "node:http";
import { parseIdempotencyKey } from "@agent-ledger/core";
import { BodyError, readJsonObject } from "../http/readBody.ts";
import { parsePayInput, type PayInput } from "./parsePayInput.ts";
import { WalletError } from "./WalletError.ts";

/** A pay request read: its input and Idempotency-Key (null: none), or the 400 to report once the session is checked. */
export type PayRequest = { input: PayInput; key: string | null; error?: undefined } | { error: WalletError | BodyError };

/**
 * Reads and checks the body, then the `Idempotency-Key` header. Errors are returned, not thrown: they are reported
 * after 401/403 (order: 401 → 403 state → 400 → 403 caps). A body error wins over a key error.
 */
export async function readPayRequest(req: IncomingMessage): Promise<PayRequest> {
  let input: PayInput;
  try {
    input = parsePayInput(await readJsonObject(req));
  } catch (error) {
    if (!(error instanceof WalletError || error instanceof BodyError)) throw error;
    return { error };
  }
  const idem = parseIdempotencyKey(req.headers["idempotency-key"]);
  if (!idem.ok) return { error: new WalletError("invalid_idempotency_key", idem.reason) };
  return { input, key: idem.key };
}
