import { createHash } from "node:crypto";
import type { PayInput } from "./parsePayInput.ts";

/** SHA-256 of the normalized request: what "the same body" means for an idempotency key. */
export function payRequestHash(input: PayInput): string {
  return createHash("sha256")
    .update(JSON.stringify([input.to, input.amount.toString(), input.token, input.memo.memo]))
    .digest("hex");
}
