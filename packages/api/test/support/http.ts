import { buildOpenApiDocument } from "../../src/routes/buildOpenApiDocument.ts";
import { ALL_ROUTES } from "../../src/routes/mountRoutes.ts";
import { validateJsonSchema } from "./validateJsonSchema.ts";

export const openapi = buildOpenApiDocument(ALL_ROUTES);

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function getJson(base: string, path: string, init: RequestInit = {}): Promise<JsonResponse> {
  const res = await fetch(base + path, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text (the assertions will say so)
  }
  return { status: res.status, headers: res.headers, body };
}

/** POSTs a GraphQL request (JSON). */
export async function gql(base: string, query: string, variables?: Record<string, unknown>): Promise<JsonResponse> {
  return getJson(base, "/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query, variables }),
  });
}

/** Validates a real response against the OpenAPI document's schema for (template path, status). */
export function schemaProblems(templatePath: string, status: number, body: unknown): string[] {
  const op = (
    openapi.paths as unknown as Record<string, { get: { responses: Record<string, { content: { "application/json": { schema: Record<string, unknown> } } }> } }>
  )[templatePath];
  const response = op?.get.responses[String(status)];
  if (!response) return [`openapi.json documents no ${status} for GET ${templatePath}`];
  return validateJsonSchema(body, response.content["application/json"].schema, openapi as never);
}

/** The spec's Event row fields, in the spec's order, then the fields methodology v0.3 added (null on older rows). */
export const EVENT_ROW_FIELDS = [
  "id",
  "ts",
  "agent_id",
  "agent_label",
  "agent_category",
  "counterparty_address",
  "counterparty_label",
  "counterparty_category",
  "kind",
  "amount_wei",
  "token_address",
  "tx_hash",
  "source_block",
  "methodology_version",
  "routed_to_address",
  "routed_to_label",
  "routed_fingerprint",
  "explorer_url",
  "attribution",
  "client_fingerprint",
  "client_label",
  "channel_id",
];
