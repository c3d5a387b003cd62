import type { AllowedToken } from "@agent-ledger/core/minimumAmountUnit";
import type { Context } from "./context.ts";

/**
 * The registry's token allowlist from the public GraphQL API (`tokens`, no credentials): amounts are read and written in
 * their own token's decimals. Empty on a ledger without one (methodology v0.1: every token in 6 decimals).
 */
export async function readAllowlist(ctx: Pick<Context, "client" | "signal">): Promise<AllowedToken[]> {
  const data = await ctx.client.graphql<{ tokens?: AllowedToken[] | null }>(
    "{ tokens { address symbol decimals currency } }",
    {},
    { signal: ctx.signal, timeoutMs: 10_000 },
  );
  return data.tokens ?? [];
}
