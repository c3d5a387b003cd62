/** `BCDFGHJK` → `BCDF-GHJK` (how a normalized code is shown and put in the approve URL). */
export function formatDeviceCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
}
