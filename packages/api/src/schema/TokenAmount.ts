import type { TokenAmount } from "../services/types.ts";
import { builder } from "./builder.ts";

/** One entry of every `byToken` list (Dashboard, Entity, EntityTotals, TrendPoint, TopEntity, Provider, SeriesPoint). */
export const TokenAmountRef = builder.objectRef<TokenAmount>("TokenAmount").implement({
  description: "Payments and volume of one token in the window (amounts are that token's raw units).",
  fields: (t) => ({
    tokenAddress: t.exposeString("tokenAddress"),
    symbol: t.exposeString("symbol", { nullable: true, description: "From the registry's token allowlist; null when it does not list the token." }),
    decimals: t.exposeInt("decimals", { nullable: true }),
    currency: t.exposeString("currency", { nullable: true }),
    txCount: t.exposeInt("txCount"),
    amountSumWei: t.expose("amountSumWei", { type: "Uint256" }),
  }),
});
