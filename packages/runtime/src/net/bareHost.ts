/** `[::1]` → `::1`: URL.hostname keeps the brackets of an IPv6 literal. */
export function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}
