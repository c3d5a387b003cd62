// How the owner console writes one balance of GET /api/wallet/balances: the chain's raw units in that token's own
// decimals (the API reads them from the token), exactly (bigint, core formatTokenUnits), and the token's name.
import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { tokenName } from "../shared/format.ts";

export interface Balance {
  token: string;
  symbol: string | null;
  decimals: number;
  balance_wei: string;
}

/** The same token name as the session rows (the explorer's); the chain's symbol only for a token the explorer does not know. */
export const balanceUnit = (b: Pick<Balance, "token" | "symbol">) =>
  tokenName(b.token).startsWith("0x") ? (b.symbol ?? tokenName(b.token)) : tokenName(b.token);

/** One balance as digits (grouped, at least 2 decimals, no float anywhere) and its unit. */
export const balanceText = (b: Balance): { value: string; unit: string } => ({
  value: formatTokenUnits(b.balance_wei, { decimals: b.decimals, group: true }),
  unit: balanceUnit(b),
});
