import { isPlainText } from "@agent-ledger/core";
import { z } from "zod";
import { jsonObject } from "../routes/jsonObject.ts";
import { parsedBy } from "../routes/parsedBy.ts";
import { WalletError } from "./WalletError.ts";

// The declared input of the wallet routes (walletRoutes.ts), checked by the router before the handler runs, with the
// codes and messages the handlers answered. Routes whose handler acts before it reads its input (a challenge consumed,
// a per-user limit counted, a session looked up) keep reading it themselves and say why in `input.own`.

/** A body that must be a JSON object and is otherwise ignored (`{}`; an empty body reads as `{}`). */
export const OBJECT_BODY = parsedBy(jsonObject);

const MAX_DISPLAY_NAME = 64;
/** POST webauthn/register/options `{ display_name? }`: at most 64 characters of plain text (400 `invalid_body`). */
export const REGISTER_OPTIONS_BODY = parsedBy((body: unknown) => {
  const displayName = jsonObject(body).display_name;
  if (
    displayName !== undefined &&
    displayName !== null &&
    (typeof displayName !== "string" || displayName.length > MAX_DISPLAY_NAME || !isPlainText(displayName))
  ) {
    throw new WalletError("invalid_body", `display_name must be a string of at most ${MAX_DISPLAY_NAME} characters without control characters`);
  }
  return { displayName: typeof displayName === "string" ? displayName : null };
});

const MAX_LABEL = 100;
/** POST device/start `{ agent_label? }`: at most 100 characters of plain text (400 `invalid_label`). */
export const START_PAIRING_BODY = parsedBy((body: unknown) => {
  const label = jsonObject(body).agent_label;
  if (label !== undefined && label !== null && (typeof label !== "string" || label.length > MAX_LABEL || !isPlainText(label))) {
    throw new WalletError("invalid_label", `agent_label must be a string of at most ${MAX_LABEL} characters without control characters`);
  }
  return { agentLabel: typeof label === "string" && label !== "" ? label : null };
});

const DEVICE_ID = /^dev_[A-Za-z0-9_-]{43}$/;
/** GET device/poll `?device_id=`: required (400 `invalid_device_id`); one of another shape names no pairing (404). */
export const POLL_QUERY = z.object({
  device_id: parsedBy((deviceId: string | undefined) => {
    if (!deviceId) throw new WalletError("invalid_device_id", "device_id is required");
    if (!DEVICE_ID.test(deviceId)) throw new WalletError("not_found", "unknown device_id");
    return deviceId;
  }),
});

/** GET payments `?limit=`: 1–100, default 20 (400 `invalid_limit`). */
export const PAYMENTS_QUERY = z.object({
  limit: parsedBy((limit: string | undefined) => {
    if (limit === undefined) return 20;
    if (!/^[1-9]\d{0,2}$/.test(limit) || Number(limit) > 100) throw new WalletError("invalid_limit", "limit must be an integer 1–100");
    return Number(limit);
  }),
});
