// The explorer's boot script: a separate, tiny classic async script listed before the app's bundle in the HTML. It
// provides the answer to the page's first GraphQL request (the dashboard's one query, or the token allowlist on other
// pages), which the app picks up (api.ts takeFirstAnswer): the answer the server inlined into the HTML, or, when it did not,
// the same public POST /graphql as every other call. No inline script that runs (CSP).
import { BOOT_GLOBAL, FIRST_ANSWER_ID, firstRequest, type BootRequests } from "./dashboardQuery.ts";

const post = (query: string, variables: Record<string, unknown> = {}) => {
  const r = fetch("/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  r.catch(() => {}); // the app reports failures when it reads the answer
  return r;
};

// The server writes the answer at the end of the HTML (FIRST_ANSWER_ID), and the app reads it there before its first
// render (api.ts takeFirstAnswer). This script sends the request only when the parsed document has no answer (the
// server did not have it in time) and the app has not asked already (then BOOT_GLOBAL is set).
const g = globalThis as Record<string, unknown>;
if (!g[BOOT_GLOBAL]) {
  const first = firstRequest(new URL(location.href));
  const parsed = document.readyState === "loading" ? new Promise((r) => document.addEventListener("DOMContentLoaded", r, { once: true })) : Promise.resolve();
  const response = parsed.then(() =>
    // (modules run before DOMContentLoaded: with an answer in the HTML, the app has taken it and no one awaits this)
    document.getElementById(FIRST_ANSWER_ID) || boot.inlineTaken ? new Promise<Response>(() => {}) : post(first.query, first.variables),
  );
  const boot: BootRequests = first.key === "dashboard" ? { dashboard: { w: first.w, response } } : { tokens: response };
  g[BOOT_GLOBAL] = boot;
}
