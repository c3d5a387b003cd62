import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import { initContextCache } from "@pothos/core";
import { createHandler, TOKEN_HEADER_KEY, TOKEN_QUERY_KEY, type ExecutionResult, type Request as SseRequest, type Response as SseResponse } from "graphql-sse";
import type { Logger } from "pino";
import { DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from "../graphql/graphqlLimits.ts";
import {
  createSourceEventStream,
  execute,
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
} from "../graphql/graphqlJs.ts";
import { createMaskError } from "../graphql/maskError.ts";
import { rejectedBy } from "../graphql/rejectedBy.ts";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "../http/readBody.ts";
import { sendError } from "../http/sendError.ts";
import { ERROR_STATUS, type ErrorCode } from "../errors.ts";
import type { GraphqlContext } from "../schema/builder.ts";
import { buildSchema } from "../schema/index.ts";
import { releaseRequestCache } from "../schema/requestCache.ts";
import type { FeedCore } from "./feedCore.ts";
import { responseConnection, StreamRegistry } from "./feedConnection.ts";
import { mapAsyncIterator } from "./mapAsyncIterator.ts";
import { FEED_DISABLED_MESSAGE } from "./types.ts";

export const GRAPHQL_STREAM_PATH = "/graphql/stream";

const PREFLIGHT_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PUT, DELETE, OPTIONS",
  "access-control-allow-headers": `content-type, accept, authorization, ${TOKEN_HEADER_KEY}`,
  "access-control-max-age": "86400",
};

const MAX_BODY_BYTES = 100_000;
/** A single-connection reservation (PUT) whose stream never connects is released after this long. */
const RESERVATION_TTL_MS = 60_000;

interface StreamRequestContext {
  res: ServerResponse | null;
}
type StreamContext = GraphqlContext & Record<PropertyKey, unknown>;

/** A refusal of the operation before it runs: one error with `code`, answered with the code's status (errors.ts). */
const refuse = (code: ErrorCode, message: string): SseResponse => [
  JSON.stringify({ errors: [{ message, extensions: { code } }] }),
  { status: ERROR_STATUS[code], statusText: STATUS_CODES[ERROR_STATUS[code]] ?? "Bad Request", headers: { "content-type": "application/json; charset=utf-8" } },
];

/**
 * The body of a refusal graphql-sse wrote itself (`{ errors: [{ message }] }`, or nothing for 415), with an
 * `extensions.code` on each error: `invalid_variables` for its variables check, `unsupported_media_type` for 415,
 * else `invalid_request`; null when every error already has a code.
 */
function codedRefusal(status: number, body: string | null | undefined): string | null {
  let errors: { message?: unknown; extensions?: Record<string, unknown> }[];
  try {
    errors = body ? (JSON.parse(body) as { errors: typeof errors }).errors : [];
  } catch {
    errors = [{ message: body }];
  }
  if (!Array.isArray(errors) || errors.length === 0)
    errors = [{ message: status === 415 ? "send the operation as application/json" : "the request was refused" }];
  if (errors.every((e) => typeof e.extensions?.code === "string")) return null;
  const codeOf = (message: unknown) => (status === 415 ? "unsupported_media_type" : message === "Invalid variables" ? "invalid_variables" : "invalid_request");
  return JSON.stringify({ errors: errors.map((e) => ({ ...e, message: String(e.message), extensions: { code: codeOf(e.message), ...e.extensions } })) });
}

function streamToken(req: IncomingMessage): string | null {
  const header = req.headers[TOKEN_HEADER_KEY];
  if (typeof header === "string" && header) return header;
  return new URL(req.url ?? "/", "http://localhost").searchParams.get(TOKEN_QUERY_KEY) || null;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.once("error", reject);
    req.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/**
 * GraphQL subscriptions over server-sent events at /graphql/stream (graphql-sse protocol), both modes:
 * distinct connections (one `text/event-stream` POST/GET per operation) and single connection (PUT reserves a stream
 * token, a GET with `x-graphql-event-stream-token` opens it, operations are POSTed with the token and stream into it).
 * Only subscription operations are accepted (queries go to /graphql, with its limits); the same armor limits apply
 * as validation rules; each pushed row executes with a fresh context (fresh DataLoaders); errors are masked as on
 * /graphql. Our own Node adapter writes without waiting for each write, so the cursor's room check sees the socket.
 */
export function createGraphqlStreamHandler(core: FeedCore | null, deps: { log: Logger; limits?: Partial<GraphqlLimits> }) {
  const limits = { ...DEFAULT_GRAPHQL_LIMITS, ...deps.limits };
  const log = deps.log.child({ component: "graphql-stream" });
  const maskError = createMaskError(log);
  const registry = new StreamRegistry();
  const reservations = new Map<string, NodeJS.Timeout>();
  const armorRules = new ApolloArmor({
    maxDepth: { n: limits.maxDepth, ignoreIntrospection: true, onReject: [rejectedBy("max_depth")] },
    costLimit: { maxCost: limits.maxCost, ignoreIntrospection: true, onReject: [rejectedBy("cost_limit")] },
    maxAliases: { n: limits.maxAliases, onReject: [rejectedBy("max_aliases")] },
    maxDirectives: { n: 20, onReject: [rejectedBy("max_directives")] },
    maxTokens: { n: limits.maxTokens, onReject: [rejectedBy("max_tokens")] },
  }).protect().validationRules;
  const rules = [...specifiedRules, ...armorRules];

  const contextFor = (req: SseRequest<IncomingMessage, StreamRequestContext>): StreamContext => {
    // A text/event-stream request that reaches onSubscribe is a distinct connection: the stream is its own response.
    // Otherwise it is an operation of a single-connection stream, found by its token.
    const distinct = req.headers.get("accept") === "text/event-stream";
    const token = req.raw ? streamToken(req.raw) : null;
    const connection = distinct && req.context.res ? responseConnection(req.context.res) : registry.connection(token ?? "");
    return { services: core!.services, feed: core!.source(connection), ...initContextCache() };
  };

  const handler = createHandler<IncomingMessage, StreamRequestContext, StreamContext>({
    schema: buildSchema(),
    validate: (schema, document) =>
      validate(schema, document, rules).map(
        (e) =>
          // no "Did you mean …?" hints (as blockFieldSuggestion does on /graphql)
          // and each with a code, as on /graphql
          new GraphQLError(e.message.replace(/ Did you mean .+\?$/, ""), {
            nodes: e.nodes,
            extensions: { code: "graphql_validation_failed", ...e.extensions },
          }),
      ),
    onSubscribe(req, params) {
      // the bound of every JSON the API reads (http/readBody.ts), before graphql-js coerces the variables
      if (exceedsJsonDepth(params.variables) || exceedsJsonDepth(params.extensions)) {
        return refuse("invalid_body", `the request is nested more than ${MAX_JSON_DEPTH} levels deep`);
      }
      let document: DocumentNode;
      try {
        document = parse(params.query, { maxTokens: limits.maxTokens });
      } catch (error) {
        return refuse("graphql_parse_failed", (error as Error).message);
      }
      const operation = getOperationAST(document, params.operationName);
      if (!operation) return refuse("invalid_request", "Unable to detect the operation (name it with operationName)");
      if (operation.operation !== "subscription") {
        return refuse("subscription_only", `only subscriptions are served at ${GRAPHQL_STREAM_PATH}; send queries to /graphql`);
      }
      return {
        schema: buildSchema(),
        document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: contextFor(req),
      };
    },
    // graphql-js's subscribe, except that each pushed row executes with a fresh context: loaders must not cache for
    // the whole life of a subscription.
    async subscribe(args: ExecutionArgs) {
      const source = await createSourceEventStream(args);
      if (!(Symbol.asyncIterator in Object(source))) return source as ExecutionResult;
      const base = args.contextValue as StreamContext;
      return mapAsyncIterator(source as AsyncIterableIterator<unknown>, async (payload) => {
        const contextValue: StreamContext = { services: base.services, feed: base.feed, ...initContextCache() };
        try {
          return (await execute({ ...args, rootValue: payload, contextValue })) as ExecutionResult;
        } finally {
          releaseRequestCache(contextValue);
        }
      });
    },
    onNext(_ctx, _req, result) {
      if (!("errors" in result) || !result.errors?.length) return;
      return { ...result, errors: result.errors.map((e) => maskError(e) as GraphQLError) };
    },
  });

  /** Releases a reservation that never connected (graphql-sse keeps it otherwise): connect it and end it at once. */
  async function releaseReservation(token: string): Promise<void> {
    reservations.delete(token);
    const [body] = await handler({
      method: "GET",
      url: GRAPHQL_STREAM_PATH,
      headers: { get: (key) => (key === "accept" ? "text/event-stream" : key === TOKEN_HEADER_KEY ? token : null) },
      body: null,
      raw: null as unknown as IncomingMessage,
      context: { res: null },
    });
    if (body && typeof body !== "string") await body.return(undefined);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!core) return sendError(res, "feed_disabled", FEED_DISABLED_MESSAGE);
    if (req.method === "OPTIONS") {
      res.writeHead(204, PREFLIGHT_HEADERS);
      return void res.end();
    }
    const [body, init] = await handler({
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: {
        get(key) {
          const value = req.headers[key];
          return Array.isArray(value) ? value.join("\n") : value;
        },
      },
      body: () => readBody(req),
      raw: req,
      context: { res },
    });
    const headers = { ...init.headers, "access-control-allow-origin": "*" };
    if (!body || typeof body === "string") {
      if (req.method === "PUT" && init.status === 201 && typeof body === "string") {
        const token = body;
        const timer = setTimeout(
          () => void releaseReservation(token).catch((err) => log.warn({ err }, "releasing a stream reservation failed")),
          RESERVATION_TTL_MS,
        );
        timer.unref();
        reservations.set(token, timer);
      }
      // graphql-sse's own refusals (parameters, media type) carry no code: give them the GraphQL error shape with one
      const refused = init.status >= 400 ? codedRefusal(init.status, body) : null;
      if (refused) headers["content-type"] = "application/json; charset=utf-8";
      res.writeHead(init.status, init.statusText, headers);
      res.end(refused ?? body ?? undefined);
      return;
    }

    // An event stream. A token names a single-connection stream: register it so its operations see this socket.
    const token = streamToken(req);
    if (token) {
      clearTimeout(reservations.get(token));
      reservations.delete(token);
      registry.attach(token, res);
    }
    req.socket.setNoDelay(true);
    req.socket.setKeepAlive(true);
    res.writeHead(init.status, init.statusText, { ...headers, "x-accel-buffering": "no" });
    const end = () => void body.return(undefined);
    res.once("close", end);
    try {
      for await (const chunk of body) {
        if (res.destroyed || res.writableEnded) break;
        res.write(chunk);
      }
      if (!res.destroyed) res.end();
    } catch (error) {
      log.warn({ err: error }, "graphql stream failed");
      res.destroy();
    } finally {
      res.off("close", end);
    }
  }

  return {
    handle,
    /** Stops the reservation timers (streams end with the hub's subscribers and the server's connections). */
    stop() {
      for (const timer of reservations.values()) clearTimeout(timer);
      reservations.clear();
    },
  };
}
