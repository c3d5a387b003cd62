import { readSchemas } from "../rest/openapi.ts";
import { addCommonErrors, extraSchemas, securitySchemes } from "./openapiParts.ts";
import type { AnyRoute, JsonRoute, Operation } from "./Route.ts";

/** `/api/services/:id` as OpenAPI writes it: `/api/services/{id}`. */
export const openApiPath = (template: string) => template.replace(/:(\w+)/g, "{$1}");

/** The Operations a route puts in the document, by lower-case method (none for a route marked `omit`). */
export function routeOperations(route: AnyRoute): [method: string, op: Operation][] {
  if ("omit" in route.openapi) return [];
  if (route.kind === "raw") return Object.entries(route.openapi as Record<string, Operation>);
  return [[route.method.toLowerCase(), route.openapi as Operation]];
}

/** A JSON GET whose answers carry an ETag (routes/writeAnswer.ts: every policy but no-store; URL-chosen ones never are). */
const hasValidator = (route: JsonRoute) => {
  const policy = route.cacheControl ?? route.surface.cacheControl;
  return route.method === "GET" && (typeof policy === "function" || !/(?:^|,)\s*no-store\s*(?:,|$)/i.test(policy));
};

const NOT_MODIFIED = {
  description: "Not Modified: If-None-Match is * or lists the 200's ETag (weak comparison); no body, the same ETag and Cache-Control (docs/api.md § Caching)",
};

/**
 * The OpenAPI 3.1 document of the app, generated from its route table: each route's Operation (declared beside its
 * handler) under its path, the component schemas, and the answers every operation can give (addCommonErrors). A
 * route is in the document unless it says why not (`openapi: { omit }`: pages, GraphQL), so none exists undocumented.
 */
export function buildOpenApiDocument(routes: readonly AnyRoute[]) {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes) {
    // cloned: addCommonErrors adds to the responses, and the declarations stay as written
    for (const [method, op] of routeOperations(route)) {
      const copy = ((paths[openApiPath(route.path)] ??= {})[method] = structuredClone(op));
      if (route.kind !== "raw" && hasValidator(route)) copy.responses["304"] ??= NOT_MODIFIED;
    }
  }
  const document = {
    openapi: "3.1.0",
    info: {
      title: "Agent Ledger HTTP API",
      version: "1.1.0",
      description:
        "The ledger's public, unauthenticated read API (open CORS), the wallet (passkey cookie and device bearer tokens), webhooks (bearer), the live feed, MCP and the operations endpoints. Amounts are uint256 decimal strings; times ISO 8601. Errors are `{ error: { code, message } }` with the codes each response lists; unknown paths are 404 not_found, other methods 405 method_not_allowed. Guides: docs/api.md, docs/wallet.md, docs/webhooks.md, docs/operations.md.",
    },
    security: [],
    tags: [
      { name: "read", description: "The ledger (docs/api.md)" },
      { name: "wallet", description: "Passkeys, device pairing, payments (docs/wallet.md)" },
      { name: "owner", description: "The owner's console: sessions, payments, balances (docs/wallet.md § Owner console)" },
      { name: "webhooks", description: "Subscriptions and deliveries (docs/webhooks.md)" },
      { name: "feed", description: "Live feed (docs/api.md § Live feed)" },
      { name: "mcp", description: "Model Context Protocol (docs/mcp.md)" },
      { name: "ops", description: "Health, readiness, metrics (docs/operations.md)" },
    ],
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    paths,
    components: { schemas: { ...readSchemas, ...extraSchemas }, securitySchemes },
  };
  addCommonErrors(document.paths as never);
  return document;
}
