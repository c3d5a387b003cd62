import { exceedsJsonDepth } from "../http/readBody.ts";

/** The GraphQL-over-HTTP parameters of one plain JSON POST. */
export interface JsonGraphqlParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
}

const PARAM_KEYS = new Set(["query", "variables", "operationName", "extensions"]);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The parameters when the body is exactly what yoga accepts without comment — one JSON object with a string `query`,
 * optional object `variables` / `extensions` (at most MAX_JSON_DEPTH deep), optional string `operationName`, nothing
 * else — else null (yoga then answers the body itself, with its own error for what is wrong: batching, bad JSON,
 * unknown parameters, nesting too deep…).
 */
export function parseJsonGraphqlParams(body: Buffer): JsonGraphqlParams | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
  if (!isObject(parsed) || typeof parsed.query !== "string") return null;
  for (const key in parsed) if (!PARAM_KEYS.has(key) && parsed[key] != null) return null;
  const { variables, operationName, extensions } = parsed;
  if (variables != null && !isObject(variables)) return null;
  if (extensions != null && !isObject(extensions)) return null;
  if (operationName != null && typeof operationName !== "string") return null;
  if (exceedsJsonDepth(variables) || exceedsJsonDepth(extensions)) return null; // yoga's parser refuses it (useRequestErrors)
  return parsed as unknown as JsonGraphqlParams;
}
