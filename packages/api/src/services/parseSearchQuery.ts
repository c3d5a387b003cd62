import { isPlainText } from "@agent-ledger/core";
import { ApiError } from "../errors.ts";

export const SEARCH_MIN_LENGTH = 2;
export const SEARCH_MAX_LENGTH = 200;

/** The trimmed search text: 2–200 characters of plain text (core isPlainText: no control characters). */
export function parseSearchQuery(q: string | null | undefined): string {
  const text = (q ?? "").trim();
  if (text.length < SEARCH_MIN_LENGTH) throw new ApiError("invalid_query", `q must be at least ${SEARCH_MIN_LENGTH} characters`);
  if (text.length > SEARCH_MAX_LENGTH) throw new ApiError("invalid_query", `q must be at most ${SEARCH_MAX_LENGTH} characters`);
  if (!isPlainText(text)) throw new ApiError("invalid_query", "q must not contain control characters");
  return text;
}
