import { keccak256, toHex, type Hex } from "viem";

export const DEMO_KEY_PREFIX = "agent-ledger-demo:";

/** Deterministic demo private key: keccak256(utf8('agent-ledger-demo:<name>')). Public knowledge — devnet only. */
export function demoPrivateKey(name: string): Hex {
  return keccak256(toHex(`${DEMO_KEY_PREFIX}${name}`));
}
