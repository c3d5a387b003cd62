import { ApiError } from "../errors.ts";

/** A client error of the webhook surface: the ApiError of /api/webhooks (statuses: errors.ts, ERROR_STATUS). */
export class WebhookError extends ApiError {
  override name = "WebhookError";
}
