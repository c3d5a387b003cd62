// Live answers against the OpenAPI document, with a maintained JSON Schema 2020-12 validator (ajv, strict mode):
// the response's status must be documented for (method, path template), and its JSON body must match that
// response's schema — for an error, that includes the list of codes it may carry.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { openapi } from "./http.ts";

// ajv-formats is CommonJS: its default export arrives as the module object under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

type Json = Record<string, unknown>;

/** The document's JSON with `#/components/schemas/X` refs rewritten to `#/$defs/X`, so each schema compiles alone. */
function localRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(localRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", "#/$defs/") : localRefs(v)]),
    );
  }
  return value;
}

export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: false, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
}

const ajv = createAjv();
const defs = localRefs((openapi.components as { schemas: Json }).schemas) as Json;
const cache = new Map<string, ValidateFunction | null>();

/** The response object documented for (method, template, status), or null. */
export function documentedResponse(method: string, template: string, status: number): Json | null {
  const paths = openapi.paths as Record<string, Record<string, { responses: Record<string, Json> }>>;
  return paths[template]?.[method.toLowerCase()]?.responses[String(status)] ?? null;
}

/** Problems of a live answer against the document (empty = it matches). Non-JSON documented bodies are not parsed. */
export function openapiProblems(method: string, template: string, status: number, body: unknown): string[] {
  const m = method === "HEAD" ? "get" : method.toLowerCase();
  const response = documentedResponse(m, template, status);
  if (!response) return [`openapi.json documents no ${status} for ${method} ${template}`];
  const content = response.content as Record<string, { schema: Json }> | undefined;
  const json = content?.["application/json"];
  if (!json || method === "HEAD") return [];
  const key = `${m} ${template} ${status}`;
  if (!cache.has(key)) cache.set(key, ajv.compile({ ...(localRefs(json.schema) as Json), $defs: defs }));
  const validate = cache.get(key)!;
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${method} ${template} ${status}: ${e.instancePath || "$"} ${e.message} ${JSON.stringify(e.params)} in ${JSON.stringify(body).slice(0, 200)}`,
  );
}
