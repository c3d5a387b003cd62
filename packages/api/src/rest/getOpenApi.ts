import type { RestResponse } from "./types.ts";

/** GET /api/openapi.json — the OpenAPI 3.1 document generated from the route table (one answer object, serialized once). */
export function getOpenApi(document: unknown): RestResponse {
  return { body: document, headers: { "cache-control": "public, max-age=300" } };
}
