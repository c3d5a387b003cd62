// The explorer's URL space, shared by the browser router (shared/router.tsx) and the server (serve/createWebHandler.ts)
// so both agree on which paths are pages (200 + the app) and which are not (404 + the app's not-found page).
// To add a page: add a route here, a component in explorer/pages/, and a case in explorer/App.tsx (docs/web.md).

export type RouteName =
  | "dashboard"
  | "services"
  | "service"
  | "agents"
  | "agent"
  | "event"
  | "tx"
  | "provider"
  | "wallet"
  | "wallet-session"
  | "webhooks"
  | "webhook";

export interface RouteMatch {
  name: RouteName;
  /** The `:param` of the pattern, decoded (absent on list pages). */
  param?: string;
}

interface RouteDef {
  name: RouteName;
  /** `/prefix` or `/prefix/:param` (one segment). */
  pattern: string;
  title: (param?: string) => string;
  description: (param?: string) => string;
}

export const SITE_NAME = "Agent Ledger";

export const ROUTES: readonly RouteDef[] = [
  {
    name: "dashboard",
    pattern: "/",
    title: () => `${SITE_NAME} — live payments of AI agents on Tempo`,
    description: () =>
      "Live dashboard of the public ledger of AI agents and paid services on the Tempo payments chain: payments, volume, top services, agents and providers.",
  },
  {
    name: "services",
    pattern: "/services",
    title: () => `Services — ${SITE_NAME}`,
    description: () => "Every curated paid service on the ledger, with its payments and volume over 24 hours and 7 days.",
  },
  {
    name: "service",
    pattern: "/services/:id",
    title: (id) => `Service ${id} — ${SITE_NAME}`,
    description: (id) => `Payments, 30-day trend and recent ledger rows of the service ${id}.`,
  },
  {
    name: "agents",
    pattern: "/agents",
    title: () => `Agents — ${SITE_NAME}`,
    description: () => "Every watched AI agent on the ledger, with its payments and volume over 24 hours and 7 days.",
  },
  {
    name: "agent",
    pattern: "/agents/:id",
    title: (id) => `Agent ${id} — ${SITE_NAME}`,
    description: (id) => `Payments, 30-day trend and recent ledger rows of the agent ${id}.`,
  },
  {
    name: "event",
    pattern: "/events/:id",
    title: (id) => `Ledger row ${id} — ${SITE_NAME}`,
    description: (id) => `Provenance of ledger row ${id}: amounts, parties, transaction, block and methodology.`,
  },
  { name: "tx", pattern: "/tx/:hash", title: (h) => `Transaction ${h} — ${SITE_NAME}`, description: (h) => `The ledger rows of transaction ${h}.` },
  {
    name: "provider",
    pattern: "/providers/:key",
    title: (k) => `Provider ${k} — ${SITE_NAME}`,
    description: (k) => `What the MPP gateway routed to the provider ${k}, over time.`,
  },
  // the owner's console (src/console/, signed in with the passkey; docs/wallet.md § Owner console, docs/webhooks.md)
  {
    name: "wallet",
    pattern: "/wallet",
    title: () => `Your wallet — ${SITE_NAME}`,
    description: () => "Sign in with your passkey to see every agent that can spend your money, what each spent, and revoke any of them on chain.",
  },
  {
    name: "wallet-session",
    pattern: "/wallet/sessions/:id",
    title: () => `Agent session — ${SITE_NAME}`,
    description: () => "One agent session of your wallet: caps, spending and payments.",
  },
  {
    name: "webhooks",
    pattern: "/webhooks",
    title: () => `Webhooks — ${SITE_NAME}`,
    description: () => "Create and manage your webhooks: filters, signing secret, deliveries.",
  },
  {
    name: "webhook",
    pattern: "/webhooks/:id",
    title: () => `Webhook — ${SITE_NAME}`,
    description: () => "One of your webhooks: status, test event, recovery and delivery log.",
  },
];

export const NOT_FOUND = { title: `Not found — ${SITE_NAME}`, description: "This page does not exist on the Agent Ledger explorer." };

/** The page a path names, or null. A trailing slash is ignored; a param is one non-empty segment, percent-decoded. */
export function matchRoute(pathname: string): RouteMatch | null {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  for (const r of ROUTES) {
    const colon = r.pattern.indexOf("/:");
    if (colon < 0) {
      if (path === r.pattern) return { name: r.name };
      continue;
    }
    const prefix = r.pattern.slice(0, colon + 1);
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    if (!rest || rest.includes("/")) continue;
    try {
      return { name: r.name, param: decodeURIComponent(rest) };
    } catch {
      return null;
    }
  }
  return null;
}

export function routeMeta(match: RouteMatch | null): { title: string; description: string } {
  if (!match) return NOT_FOUND;
  const r = ROUTES.find((x) => x.name === match.name)!;
  return { title: r.title(match.param), description: r.description(match.param) };
}
