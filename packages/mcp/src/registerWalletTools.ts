import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { getBackoffDelay } from "@agent-ledger/core/getBackoffDelay";
import { parseTokenUnits } from "@agent-ledger/core/parseTokenUnits";
import type { PayPendingAnswer, PaySentAnswer } from "@agent-ledger/core/payAnswer";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ApiCallError, type ApiCaller } from "./createApiCaller.ts";
import { PaymentList, PayResult, WalletStatus } from "./schemas.ts";
import { fail, failFrom, ok, type FailContext } from "./toolResult.ts";

const tokens = (units: string | null | undefined) => (units == null ? "" : formatTokenUnits(units, { decimals: 6, minFraction: 2 }));

/** How often one `pay` tool call asks again, with the same key, when the API did not answer or answered 502/503/504. */
const PAY_ATTEMPTS = 3;

export interface WalletToolOptions {
  /** Waits between attempts (tests shorten it). */
  sleep?: (ms: number) => Promise<unknown>;
}

/** Wallet tools (a paired session's bearer token): wallet_status, pay, list_payments. */
export function registerWalletTools(server: McpServer, api: ApiCaller, ctx: FailContext, options: WalletToolOptions = {}): void {
  const wait = options.sleep ?? ((ms: number) => sleep(ms));

  server.registerTool(
    "wallet_status",
    {
      title: "Wallet session status",
      description:
        "The paired wallet session this agent pays with: its status (only active can pay), the token, the total spending cap, the per-payment cap, what was spent, " +
        "what is reserved by payments in flight, what remains, and when it expires. Check it before paying. Needs a paired session.",
      inputSchema: {},
      outputSchema: WalletStatus,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      try {
        const { body } = await api.rest<Record<string, string>>("GET", "/api/wallet/session", { auth: true });
        return ok({
          ...body,
          amounts: {
            spend_cap: tokens(body.spend_cap_wei),
            per_call_cap: tokens(body.per_call_cap_wei),
            spend_used: tokens(body.spend_used_wei),
            spend_reserved: tokens(body.spend_reserved_wei),
            spend_remaining: tokens(body.spend_remaining_wei),
          },
        });
      } catch (error) {
        return failFrom(error, ctx);
      }
    },
  );

  server.registerTool(
    "pay",
    {
      title: "Pay",
      description:
        "Send a payment of the session's stablecoin (6 decimals) from the person's account to an address, within the caps the person approved " +
        "(over the per-payment cap: per_call_cap_exceeded; over what remains: spend_cap_exceeded — both are refusals, nothing is sent; do not retry them). " +
        'The amount is in tokens as a decimal string ("1.25"), converted exactly. ' +
        "Retrying: every call carries an idempotency key; a call with the same key, to, amount and memo never pays twice but answers the first outcome. " +
        "Pass your own idempotency_key (e.g. derived from the invoice you are paying) so that you can retry safely even when a call timed out before you saw its answer; " +
        "without one a fresh key is made and returned (in the result, or in the error). " +
        'status "pending" means broadcast but not yet confirmed: call pay again with the same idempotency_key (and the same arguments) to learn the outcome. Needs a paired session.',
      inputSchema: {
        to: z
          .string()
          .regex(/^0x[0-9a-fA-F]{40}$/, "an address: 0x + 40 hex digits")
          .describe("recipient address (0x + 40 hex)"),
        amount: z.string().min(1).max(100).describe('amount in tokens as a decimal string, e.g. "1.25" (at most 6 decimals; not base units)'),
        memo: z.string().max(66).optional().describe("optional memo: text of at most 32 UTF-8 bytes (e.g. an invoice number), or 0x + up to 64 hex digits"),
        idempotency_key: z
          .string()
          .regex(/^[!-~]{1,255}$/, "1–255 visible ASCII characters")
          .optional()
          .describe("optional, recommended: your own key for this payment (1–255 visible ASCII characters); re-use it to retry"),
      },
      outputSchema: PayResult,
      // Decided (docs/mcp.md): a payment cannot be undone (destructive); the key stays optional, so the same arguments
      // without a key pay again: idempotent only with a key, hence idempotentHint false.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async ({ to, amount, memo, idempotency_key }) => {
      const key = idempotency_key ?? `mcp-${randomUUID()}`;
      let units: bigint;
      try {
        units = parseTokenUnits(amount);
      } catch (error) {
        return fail("invalid_amount", (error as Error).message);
      }
      if (units <= 0n) return fail("invalid_amount", "the amount must be more than 0");
      const body: Record<string, string> = { to: to.toLowerCase(), amount_wei: units.toString() };
      if (memo !== undefined) body.memo = memo;
      for (let attempt = 1; ; attempt++) {
        try {
          const res = await api.rest<PaySentAnswer | PayPendingAnswer>("POST", "/api/wallet/pay", { auth: true, body, headers: { "idempotency-key": key } });
          const a = res.body;
          return ok({
            status: res.status === 202 ? "pending" : "sent",
            idempotency_key: key,
            replayed: res.headers.get("idempotent-replayed") === "true",
            tx_hash: a.tx_hash ?? null,
            explorer_url: a.explorer_url ?? null,
            from: a.from,
            to: a.to,
            amount_wei: a.amount_wei,
            amount: tokens(a.amount_wei),
            memo: a.memo ?? null,
            token: a.token,
            spend_used_wei_after: "spend_used_wei_after" in a ? a.spend_used_wei_after : null,
            spend_cap_wei: "spend_cap_wei" in a ? a.spend_cap_wei : null,
            message:
              res.status === 202
                ? `${"message" in a ? a.message : "broadcast, not confirmed yet"} — call pay again with idempotency_key "${key}" and the same arguments to learn the outcome`
                : null,
          });
        } catch (error) {
          // Uncertain: no answer, or a gateway's 502/503/504 (not the API's own 503 not_configured). Ask again with the same key.
          const uncertain = error instanceof ApiCallError && (error.status === 0 || ([502, 503, 504].includes(error.status) && error.code.startsWith("http_")));
          const inUse = error instanceof ApiCallError && error.code === "idempotency_key_in_use";
          if ((uncertain || inUse) && attempt < PAY_ATTEMPTS) {
            await wait(inUse ? 1000 * ((error as ApiCallError).retryAfterSeconds ?? 1) : getBackoffDelay(attempt, { baseMs: 500, maxMs: 8_000, random: 1 }));
            continue;
          }
          const extra: Record<string, unknown> = { idempotency_key: key };
          if (uncertain) extra.hint = `the outcome is unknown: call pay again with idempotency_key "${key}" and the same arguments (it never pays twice)`;
          return failFrom(error, ctx, extra);
        }
      }
    },
  );

  server.registerTool(
    "list_payments",
    {
      title: "Payments of this session",
      description:
        "The payments this paired session made, newest first: status (reserved = in flight, sent, failed), recipient, amount, memo, transaction hash. Needs a paired session.",
      inputSchema: { limit: z.number().int().min(1).max(100).optional().describe("how many (default 20)") },
      outputSchema: PaymentList,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ limit }) => {
      try {
        const { body } = await api.rest<{ session_id: string; items: { amount_wei: string }[] }>("GET", "/api/wallet/payments", {
          auth: true,
          query: { limit: limit === undefined ? undefined : String(limit) },
        });
        return ok({ session_id: body.session_id, items: body.items.map((p) => ({ ...p, amount: tokens(p.amount_wei) })) });
      } catch (error) {
        return failFrom(error, ctx);
      }
    },
  );
}
