import { buildOpenApiDocument } from "./openapi.ts";
import type { RestHandler } from "./types.ts";

const document = buildOpenApiDocument();

/** GET /api/openapi.json — the OpenAPI 3.1 description of this REST surface. */
export const getOpenApi: RestHandler = async () => ({ body: document, headers: { "cache-control": "public, max-age=300" } });
