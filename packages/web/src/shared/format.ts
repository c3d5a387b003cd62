import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { KNOWN_TOKEN_NAMES } from "@agent-ledger/core/tokenName";

/** Token amounts (6 decimals) exactly, grouped: "1,234.50". Bigint only — never floats. */
export const amount = (units: string | bigint) => formatTokenUnits(units, { group: true });

/** The change from `prev` to `cur` as "+12.3%" / "−4.0%", "new" from zero, "no change"; integer math only. */
export function change(cur: string | bigint | number, prev: string | bigint | number): { text: string; dir: "up" | "down" | "flat" } {
  const c = BigInt(cur);
  const p = BigInt(prev);
  if (p === 0n) return c === 0n ? { text: "no change", dir: "flat" } : { text: "new", dir: "up" };
  const permille = ((c - p) * 1000n) / p;
  if (permille === 0n) return { text: c === p ? "no change" : "±0.0%", dir: "flat" };
  const abs = permille < 0n ? -permille : permille;
  return { text: `${permille < 0n ? "−" : "+"}${abs / 10n}.${abs % 10n}%`, dir: permille < 0n ? "down" : "up" };
}

/** Share of `part` in `total` as a percentage with one decimal ("12.5%"), exact. */
export function share(part: string | bigint, total: string | bigint): string {
  const t = BigInt(total);
  if (t === 0n) return "0.0%";
  const pm = (BigInt(part) * 1000n) / t;
  return `${pm / 10n}.${pm % 10n}%`;
}

/** 0–100 width of an inline bar (integer percent of the largest value). */
export function barWidth(part: string | bigint, max: string | bigint): number {
  const m = BigInt(max);
  return m === 0n ? 0 : Number((BigInt(part) * 100n) / m);
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: "medium" });
const dayOnly = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** A time in the viewer's zone (today: time only). */
export function localTime(iso: string, now = new Date()): string {
  const d = new Date(iso);
  return d.toDateString() === now.toDateString() ? timeOnly.format(d) : dateTime.format(d);
}
export const localDateTime = (iso: string) => dateTime.format(new Date(iso));
export const localDay = (iso: string) => dayOnly.format(new Date(iso));
export const utcTitle = (iso: string) =>
  `${new Date(iso)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "")} UTC`;

export const shortHex = (s: string) => (s.length > 14 ? `${s.slice(0, 8)}…${s.slice(-6)}` : s);
export const count = (n: number) => n.toLocaleString("en-US");

/** The well-known token's name (core's one table), else the address shortened the explorer's way. */
export const tokenName = (address: string) => KNOWN_TOKEN_NAMES[address.toLowerCase()] ?? shortHex(address);

export const KIND_LABEL: Record<string, string> = { payment_sent: "sent", payment_received: "received", fee_paid: "fee" };

/** Methodology v0.3: which rule named a row's service (its `attribution`), in words (docs/methodology.md, v0.3). */
export const ATTRIBUTION_TEXT: Record<string, string> = {
  recipient_wallet: "Named by the recipient's registered wallet",
  server_id_host: "Named by the service host's fingerprint",
  server_id_realm: "Named by the service directory realm's fingerprint",
  session_escrow: "Named by the session escrow's channel events",
};
