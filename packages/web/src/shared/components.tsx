// Components the explorer and the owner console both show: a time in the viewer's zone, an exact token amount.
import { amount, localTime, utcTitle } from "./format.ts";
import { useStore } from "./store.ts";
import { tokenAmountText, tokens } from "./tokens.ts";

export function Time({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={utcTitle(iso)}>
      {localTime(iso)}
    </time>
  );
}

/**
 * An exact amount of one token, in that token's decimals with its symbol (from the registry's allowlist). Without
 * `token`: token units of 6 decimals and no unit (the caller writes it).
 */
export function Amount({ units, token }: { units: string; token?: string }) {
  const list = useStore(tokens);
  if (!token) return <span class="num">{amount(units)}</span>;
  const a = tokenAmountText(units, token, list);
  return (
    <span class="num" data-token={token.toLowerCase()}>
      {a.value}
      <span class="unit"> {a.unit}</span>
    </span>
  );
}
