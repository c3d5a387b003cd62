import { isIP } from "node:net";

/** 6 for an IPv6 address, 4 otherwise. */
export function ipFamily(address: string): 4 | 6 {
  return isIP(address) === 6 ? 6 : 4;
}
