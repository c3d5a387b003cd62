import type { ErrorCode } from "../errors.ts";

/** HTTP status of each error code on the REST surface. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_window: 400,
  invalid_id: 400,
  invalid_query: 400,
  invalid_cursor: 400,
  invalid_limit: 400,
  not_found: 404,
  method_not_allowed: 405,
  internal_error: 500,
  not_ready: 503,
};
