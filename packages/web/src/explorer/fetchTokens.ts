// The explorer's way to fetch the token allowlist (shared/tokens.ts loadTokens asks through it): the answer boot.ts
// asked for while the bundle loaded, else GraphQL `tokens`.
import { gql, takeFirstAnswer } from "./api.ts";
import { TOKENS_QUERY } from "./dashboardQuery.ts";
import type { TokenInfo } from "../shared/tokens.ts";

/** The allowlist: at hand when the first answer is already in, else a promise of GraphQL's `tokens`. */
export function fetchTokens(): TokenInfo[] | Promise<TokenInfo[]> {
  const first = takeFirstAnswer<{ tokens: TokenInfo[] }>("tokens");
  if (first && "data" in first) return first.data.tokens;
  return (first?.response ?? gql<{ tokens: TokenInfo[] }>(TOKENS_QUERY)).then((r) => r.tokens);
}
