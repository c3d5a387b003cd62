import { describe, expect, it } from "vitest";
import { openapi } from "./support/http.ts";
import { createAjv } from "./support/openapiCheck.ts";
import { listRoutes } from "./support/routeList.ts";

// The OpenAPI document itself: valid against a JSON Schema of OpenAPI 3.1's structure (below, checked with ajv), every
// Schema Object a valid JSON Schema 2020-12 (ajv strict mode compiles each one), refs and security names resolve,
// path parameters match their templates — and every route of the route table is described (the document is generated
// from the routes' fragments; routes.table.test.ts checks that none lacks one). The live answers are checked against it by the fuzz
// (invalidInput.test.ts) and the read contract test (rest.contract.test.ts).

type Json = Record<string, unknown>;
const doc = openapi as unknown as Json;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** The structure of an OpenAPI 3.1 document, as far as this one uses it (JSON Schema 2020-12). */
const OAS31 = {
  $defs: {
    response: {
      type: "object",
      required: ["description"],
      additionalProperties: false,
      properties: { description: { type: "string" }, headers: { type: "object" }, content: { $ref: "#/$defs/content" } },
    },
    content: {
      type: "object",
      minProperties: 1,
      additionalProperties: { type: "object", required: ["schema"], additionalProperties: false, properties: { schema: { type: "object" } } },
    },
    parameter: {
      type: "object",
      required: ["name", "in", "schema"],
      additionalProperties: false,
      properties: {
        name: { type: "string" },
        in: { enum: ["query", "header", "path", "cookie"] },
        required: { type: "boolean" },
        description: { type: "string" },
        schema: { type: "object" },
      },
      if: { properties: { in: { const: "path" } } },
      then: { required: ["required"], properties: { required: { const: true } } },
    },
    securityRequirement: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
    operation: {
      type: "object",
      required: ["operationId", "summary", "responses"],
      additionalProperties: false,
      properties: {
        operationId: { type: "string", pattern: "^[A-Za-z][A-Za-z0-9]*$" },
        summary: { type: "string" },
        description: { type: "string" },
        tags: { type: "array", items: { type: "string" } },
        parameters: { type: "array", items: { $ref: "#/$defs/parameter" } },
        requestBody: {
          type: "object",
          required: ["content"],
          additionalProperties: false,
          properties: { required: { type: "boolean" }, description: { type: "string" }, content: { $ref: "#/$defs/content" } },
        },
        responses: { type: "object", minProperties: 1, propertyNames: { pattern: "^[1-5][0-9]{2}$" }, additionalProperties: { $ref: "#/$defs/response" } },
        security: { type: "array", items: { $ref: "#/$defs/securityRequirement" } },
      },
    },
  },
  type: "object",
  required: ["openapi", "info", "paths", "components"],
  additionalProperties: false,
  properties: {
    openapi: { type: "string", pattern: "^3\\.1\\.\\d+$" },
    info: {
      type: "object",
      required: ["title", "version"],
      properties: { title: { type: "string" }, version: { type: "string" }, description: { type: "string" } },
    },
    jsonSchemaDialect: { type: "string", format: "uri" },
    security: { type: "array", items: { $ref: "#/$defs/securityRequirement" } },
    tags: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string" }, description: { type: "string" } } } },
    paths: {
      type: "object",
      propertyNames: { pattern: "^/" },
      additionalProperties: { type: "object", minProperties: 1, propertyNames: { enum: [...METHODS] }, additionalProperties: { $ref: "#/$defs/operation" } },
    },
    components: {
      type: "object",
      additionalProperties: false,
      properties: {
        schemas: { type: "object", additionalProperties: { type: "object" } },
        securitySchemes: {
          type: "object",
          additionalProperties: {
            oneOf: [
              {
                type: "object",
                required: ["type", "scheme"],
                properties: { type: { const: "http" }, scheme: { type: "string" }, description: { type: "string" } },
                additionalProperties: false,
              },
              {
                type: "object",
                required: ["type", "in", "name"],
                properties: {
                  type: { const: "apiKey" },
                  in: { enum: ["query", "header", "cookie"] },
                  name: { type: "string" },
                  description: { type: "string" },
                },
                additionalProperties: false,
              },
            ],
          },
        },
      },
    },
  },
};

function operations(): { method: string; template: string; op: Json }[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([template, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, template, op: op as Json })),
  );
}

/** Every Schema Object in the document with where it is. */
function schemaObjects(): [string, Json][] {
  const out: [string, Json][] = Object.entries((doc.components as { schemas: Record<string, Json> }).schemas).map(([k, v]) => [`components.schemas.${k}`, v]);
  for (const { method, template, op } of operations()) {
    for (const p of (op.parameters ?? []) as Json[]) out.push([`${method} ${template} parameter ${p.name}`, p.schema as Json]);
    const body = op.requestBody as { content: Record<string, { schema: Json }> } | undefined;
    for (const [type, c] of Object.entries(body?.content ?? {})) out.push([`${method} ${template} requestBody ${type}`, c.schema]);
    for (const [status, r] of Object.entries(op.responses as Record<string, { content?: Record<string, { schema: Json }> }>)) {
      for (const [type, c] of Object.entries(r.content ?? {})) out.push([`${method} ${template} ${status} ${type}`, c.schema]);
    }
  }
  return out;
}

function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsOf(v, out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) k === "$ref" && typeof v === "string" ? out.push(v) : refsOf(v, out);
  return out;
}

describe("the OpenAPI document", () => {
  it("is an OpenAPI 3.1 document (structure checked by ajv against a JSON Schema of OpenAPI 3.1)", () => {
    const ajv = createAjv();
    const validate = ajv.compile(OAS31);
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 5), null, 1)).toBe(true);
  });

  it("every Schema Object is a valid JSON Schema 2020-12 (ajv strict mode) and every $ref resolves", () => {
    const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
    const defs = JSON.parse(JSON.stringify(schemas).replaceAll("#/components/schemas/", "#/$defs/"));
    const problems: string[] = [];
    for (const [where, schema] of schemaObjects()) {
      try {
        createAjv().compile({ ...JSON.parse(JSON.stringify(schema).replaceAll("#/components/schemas/", "#/$defs/")), $defs: defs });
      } catch (error) {
        problems.push(`${where}: ${(error as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    const unresolved = refsOf(doc).filter((r) => !schemas[r.replace("#/components/schemas/", "")]);
    expect(unresolved).toEqual([]);
  });

  it("declares bearer and the al_session cookie, and every security requirement names a declared scheme", () => {
    const schemes = (doc.components as { securitySchemes: Record<string, Json> }).securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(schemes.cookie).toMatchObject({ type: "apiKey", in: "cookie", name: "al_session" });
    const names = operations().flatMap(({ op }) => ((op.security ?? []) as Json[]).flatMap((r) => Object.keys(r)));
    expect(new Set(names)).toEqual(new Set(["bearer", "cookie"]));
    // the wallet's pay and the webhook writes take the bearer; the owner's console the cookie
    expect((doc.paths as any)["/api/wallet/pay"].post.security).toEqual([{ bearer: [] }]); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect((doc.paths as any)["/api/wallet/sessions"].get.security).toEqual([{ cookie: [] }]); // eslint-disable-line @typescript-eslint/no-explicit-any
  });

  it("operation ids are unique, path parameters match their templates, every error response lists its codes", () => {
    const ops = operations();
    const ids = ops.map(({ op }) => op.operationId);
    expect(ids.length).toBe(new Set(ids).size);
    for (const { method, template, op } of ops) {
      const inTemplate = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = ((op.parameters ?? []) as Json[])
        .filter((p) => p.in === "path")
        .map((p) => p.name)
        .sort();
      expect(declared, `${method} ${template}`).toEqual(inTemplate);
      for (const [status, r] of Object.entries(op.responses as Record<string, { content?: Record<string, { schema: Json }> }>)) {
        if (Number(status) < 400 || template === "/readyz") continue;
        const schema = r.content?.["application/json"]?.schema;
        const codes = schema && ((schema.$ref ? (doc.components as any).schemas.Error : schema) as any).properties.error.properties.code.enum; // eslint-disable-line @typescript-eslint/no-explicit-any
        expect(Array.isArray(codes) && codes.length > 0, `${method} ${template} ${status}`).toBe(true);
      }
    }
  });

  it("describes every route of the route table (fails for a route added without its fragment)", () => {
    const documented = new Set(operations().map(({ method, template }) => `${method.toUpperCase()} ${template}`));
    // every route the app mounts (routes/mountRoutes.ts), but those that say why they are not REST (pages, GraphQL)
    const routes = listRoutes()
      .filter(({ route }) => !("omit" in route.openapi))
      .map((r) => `${r.method} ${r.template}`);
    expect(routes.length).toBeGreaterThan(45);
    expect(
      routes.filter((r) => !documented.has(r)),
      "routes missing from the OpenAPI document (their `openapi` fragment)",
    ).toEqual([]);
    // and nothing documented that no table serves
    const served = new Set(routes);
    expect([...documented].filter((d) => !served.has(d))).toEqual([]);
  });
});
