import { mppFingerprint } from "@agent-ledger/core";
import { V03 } from "./seedV03Ledger.ts";

/**
 * One request to each public read route, by route template, over the v0.3 ledger of support/seedV03Ledger.ts (`eventId`:
 * one of its rows). Tests that walk READ_ROUTES take their samples here, so a new read route without one fails them.
 */
export function readSamples(eventId: () => number): Record<string, () => string> {
  return {
    "/api/dashboard": () => "/api/dashboard?w=all",
    "/api/services": () => "/api/services",
    "/api/services/:id": () => "/api/services/dune-mpp",
    "/api/services/:id/events": () => "/api/services/dune-mpp/events?limit=1",
    "/api/agents": () => "/api/agents",
    "/api/agents/:id": () => "/api/agents/v3-agent",
    "/api/agents/:id/events": () => "/api/agents/v3-agent/events",
    "/api/events/:id": () => `/api/events/${eventId()}`,
    "/api/search": () => "/api/search?q=dune",
    "/api/dashboard/previous": () => "/api/dashboard/previous?w=24h",
    "/api/series": () => "/api/series?w=7d",
    "/api/providers/:key": () => `/api/providers/${mppFingerprint(V03.FAL_HOST)}`,
    "/api/openapi.json": () => "/api/openapi.json",
  };
}
