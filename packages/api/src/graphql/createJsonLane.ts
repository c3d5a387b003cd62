import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { processRegularResult, type YogaServerInstance } from "graphql-yoga";
import type { GraphqlContext } from "../schema/builder.ts";
import { createTtlCache, type TtlCache } from "../services/createTtlCache.ts";
import { getOperationAST, print, type DocumentNode, type ExecutionResult } from "./graphqlJs.ts";
import { isCacheableOperation } from "./isCacheableOperation.ts";
import { parseJsonGraphqlParams, type JsonGraphqlParams } from "./parseJsonGraphqlParams.ts";
import { stableJson } from "./stableJson.ts";

const JSON_TYPE = "application/json; charset=utf-8";

type Yoga = YogaServerInstance<Record<string, unknown>, GraphqlContext>;

/** A serialized GraphQL answer: what is written to the socket. */
export interface CachedResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** A computed answer and whether it may be kept (only complete, error-free answers are). */
export interface ComputedResponse {
  response: CachedResponse;
  cacheable: boolean;
}

/** Distinct query texts remembered as checked (then forgotten all at once). */
const MAX_CHECKED = 1_000;

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
 *
 * Request coalescing (`coalesce`, default on): any other query sent without credentials (no `Authorization`, no
 * `Cookie`) that arrives while the same operation with the same variables is being executed shares that execution's
 * serialized answer; nothing is kept once it is sent. Invariant: without credentials, an answer depends only on the
 * operation and its variables (queries have no side effects; the principal comes only from those two headers).
 */
export function createJsonLane(deps: {
  yoga: Yoga;
  cache: TtlCache<ComputedResponse> | null;
  coalesce?: boolean;
  /** Headers added to each answer written, computed after its reads (read routing's `X-Ledger-Block`, docs/api.md). */
  readHeaders?: (req: IncomingMessage) => Promise<Record<string, string>>;
}) {
  const { yoga, cache } = deps;
  const inflight = deps.coalesce === false ? null : createTtlCache<ComputedResponse>(0);
  // Queries already parsed and validated, by operation name and query text. The schema and the validation rules never
  // change, so a text that passed once passes again: it skips yoga's parse and validation and, when its answer is
  // cached or being computed, the envelop altogether. Its document is the one yoga's parser cache handed out.
  const checked = new Map<string, { document: DocumentNode; key: string; cacheable: boolean }>();
  // kept as bytes: an answer served again for a TTL is written without encoding again
  const asBytes = (c: ComputedResponse): ComputedResponse => ({ ...c, response: { ...c.response, body: Buffer.from(c.response.body) } });

  const execute = async (
    params: JsonGraphqlParams,
    document: DocumentNode,
    enveloped: ReturnType<Yoga["getEnveloped"]>,
    forCache = false,
  ): Promise<ComputedResponse> => {
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

  /** The answer to one JSON request, or null when yoga should answer it (see above). */
  async function respond(req: IncomingMessage, res: ServerResponse, params: JsonGraphqlParams): Promise<ComputedResponse | null> {
    let enveloped: ReturnType<Yoga["getEnveloped"]> | undefined;
    const envelop = () => (enveloped ??= yoga.getEnveloped({ req, res, params, request: requestView(req, yoga) } as never));
    // (no operation name and an empty one are different requests: graphql-js finds no operation named "")
    const textKey = `${params.operationName ?? "\u0001"}\u0000${params.query}`;
    let query = checked.get(textKey);
    if (!query) {
      const e = envelop();
      try {
        const document = e.parse(params.query) as DocumentNode;
        const operation = getOperationAST(document, params.operationName ?? undefined);
        if (!operation || operation.operation !== "query") return null;
        // graphql-armor's rules throw instead of reporting; either way yoga answers the request with its error.
        if (e.validate(e.schema, document).length > 0) return null;
        query = { document, key: `${operation.name?.value ?? ""}\u0000${print(document)}`, cacheable: isCacheableOperation(document, operation) };
      } catch {
        return null; // syntax errors, armor's limits: yoga answers them (from its caches) with its error codes
      }
      if (checked.size >= MAX_CHECKED) checked.clear();
      checked.set(textKey, query);
    }
    const { document } = query;
    const key = () => `${query.key}\u0000${stableJson(params.variables ?? {})}`;

    try {
      if (cache && query.cacheable) return await cache.get(key(), () => execute(params, document, envelop(), true).then(asBytes));
      if (inflight && req.headers.authorization === undefined && req.headers.cookie === undefined)
        return await inflight.get(key(), () => execute(params, document, envelop()));
      return await execute(params, document, envelop());
    } catch {
      return null; // not expected (errors are results); yoga then answers the request on its own
    }
  }

  return {
    /** Answers a plain JSON POST on the lane; false: nothing written, yoga answers it. */
    async answer(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<boolean> {
      const params = parseJsonGraphqlParams(body);
      if (!params) return false;
      const computed = await respond(req, res, params);
      if (!computed) return false;
      write(res, computed.response, deps.readHeaders ? await deps.readHeaders(req) : undefined);
      return true;
    },
    /**
     * The answer a client without credentials would get for this query (same validation, caches and coalescing as
     * its POST), computed in-process: the explorer's HTML carries the dashboard's first answer (docs/web.md). Null
     * when the lane would hand the request to yoga (invalid queries, mutations).
     */
    query(params: JsonGraphqlParams): Promise<ComputedResponse | null> {
      const req = new IncomingMessage(new Socket());
      req.method = "POST";
      req.url = "/graphql";
      req.headers = { "content-type": "application/json", accept: "application/json" };
      return respond(req, new ServerResponse(req), params);
    },
  };
}

function write(res: ServerResponse, r: CachedResponse, extra?: Record<string, string>): void {
  res.writeHead(r.status, extra ? { ...r.headers, ...extra } : r.headers);
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
      return (headers ??= new yoga.fetchAPI.Headers(
        Object.entries(req.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(", ") : v] as [string, string]])),
      ));
    },
  };
}
