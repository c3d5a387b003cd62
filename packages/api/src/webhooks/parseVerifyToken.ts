import { WebhookError } from "./WebhookError.ts";

/** The verify token of a `{ verify_token }` body (other fields ignored): 1–200 characters, else 400 `invalid_body`. */
export function parseVerifyToken(body: unknown): string {
  const token = (body as { verify_token?: unknown } | null)?.verify_token;
  if (typeof token !== "string" || token.length === 0 || token.length > 200) throw new WebhookError("invalid_body", "verify_token (string) is required");
  return token;
}
