// The dashboard's one GraphQL request, shared by the boot script (boot.ts, which sends it before the app's bundle has
// arrived) and the dashboard page. No imports from the app: boot.ts stays a few hundred bytes.
import { ROW_FIELDS } from "./rowFields.ts";

export const WINDOWS = ["24h", "7d", "30d", "all"] as const;
export type Window = (typeof WINDOWS)[number];

/** The window a dashboard URL asks for (`?window=`; 24h when absent or unknown). */
export const windowOf = (url: URL): Window => {
  const w = url.searchParams.get("window");
  return (WINDOWS as readonly string[]).includes(w ?? "") ? (w as Window) : "24h";
};

/** The registry's token allowlist: how each token's raw units are written (symbol, decimals). */
export const TOKENS_QUERY = "query Tokens { tokens { address symbol decimals currency } }";

/** Everything the dashboard shows in one request: figures, previous window, tops, newest rows, series, tokens. */
export const DASHBOARD_QUERY = `query Dashboard($w: String!) {
  dashboard(window: $w) {
    window txCount amountSumWei agentsActive providersDetected
    byToken { tokenAddress symbol decimals currency txCount amountSumWei }
    previous { txCount amountSumWei agentsActive providersDetected }
    topServices { id label category txCount amountSumWei }
    topAgents { id label category txCount amountSumWei }
    topProviders { key pattern label txCount amountSumWei }
    recentEvents { ${ROW_FIELDS} }
  }
  activitySeries(window: $w) { bucket points { t txCount amountSumWei } }
  tokens { address symbol decimals currency }
}`;

/** What boot.ts leaves for the app: the first request of the page, already under way. */
export interface BootRequests {
  dashboard?: { w: Window; response: Promise<Response> };
  tokens?: Promise<Response>;
}
export const BOOT_GLOBAL = "__agentLedgerBoot";
