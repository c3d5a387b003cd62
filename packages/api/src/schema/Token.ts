import type { TokenInfo } from "../services/listTokens.ts";
import { builder } from "./builder.ts";

const TokenRef = builder.objectRef<TokenInfo>("Token").implement({
  description: "A token of the registry's allowlist: amounts of it are raw units with `decimals` decimals.",
  fields: (t) => ({
    address: t.exposeString("address"),
    symbol: t.exposeString("symbol"),
    decimals: t.exposeInt("decimals"),
    currency: t.exposeString("currency", { description: "e.g. USD: tokens of one currency may be compared, raw units are never added across tokens." }),
  }),
});

builder.queryField("tokens", (t) =>
  t.field({
    type: [TokenRef],
    description: "The registry's token allowlist (methodology v0.2), by symbol; empty without one (v0.1: amounts are token units of 6 decimals).",
    resolve: (_root, _args, ctx) => ctx.services.listTokens(),
  }),
);
