import type { IncomingMessage, ServerResponse } from "node:http";
import { processRegularResult, type YogaServerInstance } from "graphql-yoga";
import type { GraphqlContext } from "../schema/builder.ts";
import type { CachedResponse, ComputedResponse, createResponseCache } from "./createResponseCache.ts";
import { getOperationAST, print, type DocumentNode, type ExecutionResult } from "./graphqlJs.ts";
import { isCacheableOperation } from "./isCacheableOperation.ts";
import { parseJsonGraphqlParams, type JsonGraphqlParams } from "./parseJsonGraphqlParams.ts";
import { stableJson } from "./stableJson.ts";

const JSON_TYPE = "application/json; charset=utf-8";

type Yoga = YogaServerInstance<Record<string, unknown>, GraphqlContext>;

/**
 * The direct lane for the common request — a plain JSON POST of one query, answered as `application/json` — run
 * through yoga's own envelop (`getEnveloped`: the same parse/validation caches, graphql-armor rules, context, masked
 * errors and result serialization as yoga), but without yoga's Fetch-API request/response round trip.
 *
 * It answers only what it can answer exactly as yoga would; it returns false (nothing written) for everything else —
 * bodies yoga would refuse or comment on, parse and validation errors, mutations and subscriptions — and the caller
 * hands the buffered body to yoga.
 *
 * With a `cache`, operations that only select public cacheable root fields (isCacheableOperation) are answered from
 * it, keyed on the normalized operation (printed document + operation name) and the variables.
 */
export function createJsonLane(deps: { yoga: Yoga; cache: ReturnType<typeof createResponseCache> | null }) {
  const { yoga, cache } = deps;
  // Per parsed document (yoga's parser cache hands out the same object for the same text): its printed form.
  const printed = new WeakMap<DocumentNode, string>();

  const execute = async (params: JsonGraphqlParams, document: DocumentNode, enveloped: ReturnType<Yoga["getEnveloped"]>, forCache = false): Promise<ComputedResponse> => {
    const contextValue = await enveloped.contextFactory();
    // An answer that will be kept one TTL is computed from fresh data (not from the services' dashboard cache).
    if (forCache) (contextValue as unknown as GraphqlContext).freshDashboard = true;
    const result = (await enveloped.execute({
      schema: enveloped.schema,
      document,
      contextValue,
      variableValues: params.variables,
      operationName: params.operationName,
    })) as ExecutionResult;
    if (!result.errors?.length && !result.extensions) {
      // What yoga's regular result processor writes for a complete answer: 200, the result as JSON.
      const body = JSON.stringify(result);
      return { response: { status: 200, headers: { "content-type": JSON_TYPE, "content-length": String(Buffer.byteLength(body)) }, body }, cacheable: true };
    }
    const response = processRegularResult(result, yoga.fetchAPI, "application/json");
    const body = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value: string, name: string) => {
      headers[name] = value;
    });
    headers["content-length"] = String(Buffer.byteLength(body));
    return { response: { status: response.status, headers, body }, cacheable: response.status === 200 && !result.errors?.length };
  };

  return async function answer(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<boolean> {
    const params = parseJsonGraphqlParams(body);
    if (!params) return false;
    const enveloped = yoga.getEnveloped({ req, res, params, request: requestView(req, yoga) } as never);
    let document: DocumentNode;
    try {
      document = enveloped.parse(params.query) as DocumentNode;
      const operation = getOperationAST(document, params.operationName ?? undefined);
      if (!operation || operation.operation !== "query") return false;
      // graphql-armor's rules throw instead of reporting; either way yoga answers the request with its error.
      if (enveloped.validate(enveloped.schema, document).length > 0) return false;
    } catch {
      return false; // syntax errors, armor's limits: yoga answers them (from its caches) with its error codes
    }
    const operation = getOperationAST(document, params.operationName ?? undefined)!;

    let computed: ComputedResponse;
    try {
      if (cache && isCacheableOperation(document, operation)) {
        let text = printed.get(document);
        if (text === undefined) printed.set(document, (text = print(document)));
        const key = `${operation.name?.value ?? ""}\u0000${text}\u0000${stableJson(params.variables ?? {})}`;
        // kept as bytes: a hit is written without encoding again
        computed = await cache.get(key, () => execute(params, document, enveloped, true).then((c) => ({ ...c, response: { ...c.response, body: Buffer.from(c.response.body) } })));
      } else {
        computed = await execute(params, document, enveloped);
      }
    } catch {
      return false; // not expected (errors are results); yoga then answers the request on its own
    }
    write(res, computed.response);
    return true;
  };
}

function write(res: ServerResponse, r: CachedResponse): void {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
}

/**
 * What yoga's own plugins read of the Fetch `Request` while parsing and validating (`method`, `url`, `headers`: e.g.
 * the plugin that tags parse errors GRAPHQL_PARSE_FAILED and refuses mutations over GET), without building one.
 */
function requestView(req: IncomingMessage, yoga: Yoga) {
  let headers: Headers | undefined;
  return {
    method: "POST",
    url: `http://localhost${req.url ?? "/graphql"}`,
    get headers(): Headers {
      return (headers ??= new yoga.fetchAPI.Headers(Object.entries(req.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(", ") : v] as [string, string]]))));
    },
  };
}
