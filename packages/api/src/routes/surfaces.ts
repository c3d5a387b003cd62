import type { Surface } from "./Route.ts";

// How each family of routes answers beyond its handlers (routes/Route.ts, Surface). One declaration per surface.

/**
 * The public read API under /api: open CORS, GET with HEAD, identical reads in flight coalesced, and `no-cache` for a
 * read that declares no policy of its own (every one does: rest/readCache.ts; docs/api.md, Caching).
 */
export const READ_SURFACE: Surface = {
  name: "read",
  preflight: {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, HEAD, OPTIONS",
    "access-control-allow-headers": "authorization, content-type, last-event-id, x-ledger-min-block",
    "access-control-max-age": "86400",
  },
  head: true,
  allowExtra: ["HEAD", "OPTIONS"],
  cacheControl: "no-cache",
  cors: true,
  coalesce: true,
  // A request asking for a minimum block (docs/api.md, Read replicas) must not share an answer computed without it.
  coalesceBy: ["x-ledger-min-block"],
};

/** /api/webhooks (spec §4 Webhooks): bearer clients from anywhere, never cached. */
export const WEBHOOK_SURFACE: Surface = {
  name: "webhooks",
  preflight: {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
    "access-control-allow-headers": "authorization, content-type",
    "access-control-max-age": "86400",
  },
  head: false,
  allowExtra: ["OPTIONS"],
  cacheControl: "no-store",
  cors: true,
};

/** /api/wallet (docs/wallet.md): no CORS (the passkey cookie's pages are ours), never cached. */
export const WALLET_SURFACE: Surface = {
  name: "wallet",
  head: true,
  allowExtra: [],
  cacheControl: "no-store",
  cors: false,
};

/** /healthz, /readyz, /metrics: GET and HEAD, the generic preflight. */
export const OPS_SURFACE: Surface = {
  name: "ops",
  preflight: { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, OPTIONS" },
  head: true,
  allowExtra: ["HEAD"],
  cacheControl: "no-store",
  cors: true,
};
