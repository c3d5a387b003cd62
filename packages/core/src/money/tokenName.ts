/** The well-known TIP-20 stablecoins (same addresses on every Tempo network and the devnet), keyed lower-case. */
export const KNOWN_TOKEN_NAMES: Readonly<Record<string, string>> = {
  "0x20c0000000000000000000000000000000000000": "pathUSD",
  "0x20c0000000000000000000000000000000000001": "AlphaUSD",
  "0x20c0000000000000000000000000000000000002": "BetaUSD",
  "0x20c0000000000000000000000000000000000003": "ThetaUSD",
};

/**
 * A display name for a token address: "pathUSD" for the well-known tokens (any letter case), else the address
 * shortened to "0xabcd…1234"; `none` when there is no address. Browser-safe (no imports): the web bundles this file
 * through the `@agent-ledger/core/tokenName` export and the CLI uses it too, so both name tokens alike.
 */
export function tokenName(address: string | null | undefined, none = ""): string {
  if (!address) return none;
  return KNOWN_TOKEN_NAMES[address.toLowerCase()] ?? `${address.slice(0, 6)}…${address.slice(-4)}`;
}
