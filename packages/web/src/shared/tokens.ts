// The registry's token allowlist (GraphQL `tokens`) and how amounts are written with it: each amount in its own
// token's decimals with its symbol, exactly (bigint); raw units are never added across tokens of different decimals.
import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { commonTokenUnit } from "@agent-ledger/core/minimumAmountUnit";
import { amount, shortHex, tokenName } from "./format.ts";
import { createStore } from "./store.ts";

export interface TokenInfo {
  address: string;
  symbol: string;
  decimals: number;
  currency: string;
}

/** The allowlist by lower-case address; null until known. Empty: no allowlist (v0.1), amounts are token units of 6 decimals. */
export const tokens = createStore<ReadonlyMap<string, TokenInfo> | null>(null);

export const setTokens = (list: TokenInfo[]) => tokens.set(new Map(list.map((t) => [t.address.toLowerCase(), t])));

/**
 * How the allowlist is fetched: the page that hosts these modules provides it once at start-up (the explorer's
 * main.tsx: the answer its boot script asked for, else GraphQL `tokens`); shared code never imports a page's API
 * module. An answer already at hand is returned as is; otherwise a promise.
 */
export type TokensFetcher = () => TokenInfo[] | Promise<TokenInfo[]>;
let fetchTokens: TokensFetcher | null = null;
export const provideTokensFetcher = (fetcher: TokensFetcher) => void (fetchTokens = fetcher);

/** Loads the allowlist once (boot.ts may have asked already); a failure leaves it unknown (the next call asks again). */
let loading: Promise<void> | null = null;
export function loadTokens(): Promise<void> {
  if (tokens.get()) return Promise.resolve();
  if (loading) return loading;
  if (!fetchTokens) return Promise.reject(new Error("loadTokens: no tokens fetcher provided (provideTokensFetcher)"));
  let answer: TokenInfo[] | Promise<TokenInfo[]>;
  try {
    answer = fetchTokens();
  } catch (error) {
    return Promise.reject(error);
  }
  if (Array.isArray(answer)) {
    setTokens(answer);
    return Promise.resolve();
  }
  loading = answer.then(
    (list) => setTokens(list),
    () => {
      loading = null;
    },
  );
  return loading;
}

/** One amount of one token: its digits in that token's decimals and the unit to show after them. */
export function tokenAmountText(units: string | bigint, tokenAddress: string, list: ReadonlyMap<string, TokenInfo> | null): { value: string; unit: string } {
  if (!list || list.size === 0) return { value: amount(units), unit: tokenName(tokenAddress) }; // v0.1: token units, 6 decimals
  const t = list.get(tokenAddress.toLowerCase());
  if (t) return { value: formatTokenUnits(units, { decimals: t.decimals, group: true }), unit: t.symbol };
  return { value: formatTokenUnits(units, { decimals: 0, minFraction: 0, group: true }), unit: `raw units of ${shortHex(tokenAddress)}` };
}

/**
 * How a sum over every token (a read without a per-token split: top tables, series, totals) may be written: only when
 * every allowlisted token has the same decimals (then it is a number of tokens of that size; of one currency, a
 * currency amount). Null when the allowlist mixes decimals: such a sum is not a number of anything and is not shown.
 */
export function commonUnit(list: ReadonlyMap<string, TokenInfo> | null): { decimals: number; unit: string } | null {
  return commonTokenUnit(list ? [...list.values()] : []);
}

/** A cross-token sum as text, or null when the allowlist mixes decimals (see commonUnit). */
export function sumText(units: string | bigint, list: ReadonlyMap<string, TokenInfo> | null): string | null {
  const u = commonUnit(list);
  return u ? formatTokenUnits(units, { decimals: u.decimals, group: true }) : null;
}

/** The footer's sentence on units: per token from the registry. */
export function unitsSentence(list: ReadonlyMap<string, TokenInfo> | null): string {
  if (!list) return "Amounts are shown exactly, each in its token's units";
  if (list.size === 0) return "Amounts are token units (6 decimals), shown exactly";
  const each = [...list.values()].map((t) => `${t.symbol} ${t.decimals} decimals`).join(", ");
  return `Amounts are shown exactly, each in its own token's units (${each})`;
}
