import type { AllowedToken } from "@agent-ledger/core/minimumAmountUnit";
import type { Context } from "./context.ts";

/**
 * The registry's token allowlist from the public GraphQL API (`tokens`, no credentials): amounts are read and written in
 * their own token's decimals. Empty on a ledger without one (methodology v0.1: every token in 6 decimals).
 */
export async function readAllowlist(ctx: Pick<Context, "client" | "signal">): Promise<AllowedToken[]> {
  const r = await ctx.client.request<{ data?: { tokens?: AllowedToken[] } }>("POST", "/graphql", { signal: ctx.signal, body: { query: "{ tokens { address symbol decimals currency } }" }, timeoutMs: 10_000 });
  return r.body.data?.tokens ?? [];
}
