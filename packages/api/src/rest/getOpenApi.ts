import type { RestResponse } from "./types.ts";

/** GET /api/openapi.json — the OpenAPI 3.1 document generated from the route table (one answer object, serialized and hashed once; its Cache-Control is declared on the route). */
export function getOpenApi(document: unknown): RestResponse {
  return { body: document };
}
