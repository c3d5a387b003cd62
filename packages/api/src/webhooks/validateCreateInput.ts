import { ENTITY_ID, isAddress, isPlainText, parseU256 } from "@agent-ledger/core";
import { WebhookError } from "./WebhookError.ts";

export interface CreateInput {
  callbackUrl: URL;
  label: string;
  filters: {
    agentId: string;
    recipientAddress: string | null;
    routedToAddress: string | null;
    minAmountWei: bigint | null;
    tokenAddress: string | null;
  };
}

const FILTER_KEYS = new Set(["agent_id", "recipient_address", "routed_to_address", "min_amount_wei", "token_address"]);
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Validates `POST /api/webhooks` (spec §2, §7): `callback_url` https in production (outside production
 * http only for localhost/127.0.0.1/[::1]); no credentials or fragments in the URL; `label` optional
 * plain text (core isPlainText) up to 200 characters; `filters.agent_id` required, an entity id (core ENTITY_ID: an id
 * of another shape names no agent, and is refused before any query); addresses `0x` + 40 hex, normalized to
 * lowercase; `min_amount_wei` a non-negative integer string; any other filter key is refused (the v1
 * filter set has no memo prefix). Agent existence and DNS are checked by the caller. That the body is an object of these
 * three fields is the route's declared input (webhookInputs.ts CREATE_WEBHOOK_BODY); GraphQL builds one.
 */
export function validateCreateInput(b: Record<string, unknown>, options: { production: boolean }): CreateInput {
  return { callbackUrl: validateCallbackUrl(b.callback_url, options), label: validateLabel(b.label), filters: validateFilters(b.filters) };
}

export function validateCallbackUrl(value: unknown, options: { production: boolean }): URL {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048)
    throw new WebhookError("invalid_callback_url", "callback_url must be a URL string of at most 2048 characters");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebhookError("invalid_callback_url", "callback_url is not a valid URL");
  }
  if (url.username || url.password) throw new WebhookError("invalid_callback_url", "callback_url must not contain credentials");
  if (url.hash) throw new WebhookError("invalid_callback_url", "callback_url must not contain a fragment");
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && !options.production && LOCAL_HOSTS.has(url.hostname)) return url;
  throw new WebhookError(
    "invalid_callback_url",
    options.production
      ? "callback_url must use https"
      : "callback_url must use https (http is allowed only for localhost, 127.0.0.1 and [::1] outside production)",
  );
}

function validateLabel(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string" || value.length > 200 || !isPlainText(value)) {
    throw new WebhookError("invalid_label", "label must be a string of at most 200 characters without control characters");
  }
  return value;
}

function address(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (!isAddress(value)) throw new WebhookError("invalid_filters", `filters.${name} must be an address (0x followed by 40 hex characters)`);
  return value.toLowerCase();
}

function validateFilters(value: unknown): CreateInput["filters"] {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new WebhookError("invalid_filters", "filters must be an object with at least agent_id");
  const f = value as Record<string, unknown>;
  for (const key of Object.keys(f))
    if (!FILTER_KEYS.has(key)) throw new WebhookError("invalid_filters", `filters.${key} is not a v1 filter (allowed: ${[...FILTER_KEYS].join(", ")})`);
  if (typeof f.agent_id !== "string" || f.agent_id.length === 0) throw new WebhookError("invalid_filters", "filters.agent_id is required");
  if (!ENTITY_ID.test(f.agent_id))
    throw new WebhookError("invalid_filters", "filters.agent_id must be an entity id (lowercase letters, digits and inner dashes, at most 64)");
  let minAmountWei: bigint | null = null;
  if (f.min_amount_wei !== undefined && f.min_amount_wei !== null) {
    try {
      minAmountWei = parseU256(f.min_amount_wei);
    } catch {
      throw new WebhookError("invalid_filters", "filters.min_amount_wei must be a non-negative integer as a decimal string");
    }
  }
  return {
    agentId: f.agent_id,
    recipientAddress: address(f.recipient_address, "recipient_address"),
    routedToAddress: address(f.routed_to_address, "routed_to_address"),
    minAmountWei,
    tokenAddress: address(f.token_address, "token_address"),
  };
}
