// The explorer's boot script: a separate, tiny module listed before the app's bundle in the HTML. Module scripts run in
// order, each as soon as it has arrived, so this one starts the page's first GraphQL request (the dashboard's one query,
// or the token allowlist on other pages) while the app's ~40 KB are still downloading and being parsed. The app picks
// the responses up (api.ts takeBoot). Same public POST /graphql as every other call; no inline script (CSP).
import { BOOT_GLOBAL, DASHBOARD_QUERY, TOKENS_QUERY, windowOf, type BootRequests } from "./dashboardQuery.ts";

const post = (query: string, variables: Record<string, unknown> = {}) => {
  const r = fetch("/graphql", { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify({ query, variables }) });
  r.catch(() => {}); // the app reports failures when it reads the answer
  return r;
};

const url = new URL(location.href);
const boot: BootRequests = {};
if (url.pathname === "/") {
  const w = windowOf(url);
  boot.dashboard = { w, response: post(DASHBOARD_QUERY, { w }) };
} else boot.tokens = post(TOKENS_QUERY);
(globalThis as Record<string, unknown>)[BOOT_GLOBAL] = boot;
