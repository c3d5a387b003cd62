import { useGraphQlJit } from "@envelop/graphql-jit";
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { initContextCache } from "@pothos/core";
import { createYoga } from "graphql-yoga";
import type { Logger } from "pino";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { AuthError, type Principal } from "../auth/authenticate.ts";
import type { Services } from "../services/createServices.ts";
import type { WebhookService } from "../webhooks/createWebhookService.ts";
import type { WalletContext } from "../wallet/context.ts";
import type { OwnerUser } from "../wallet/owner.ts";
import { requireUser } from "../wallet/userSession.ts";
import type { GraphqlContext } from "../schema/builder.ts";
import { buildSchema } from "../schema/index.ts";
import { acceptsJsonLane } from "./acceptsJsonLane.ts";
import { createJsonLane, type ComputedResponse } from "./createJsonLane.ts";
import { createTtlCache } from "../services/createTtlCache.ts";
import { createMaskError } from "./maskError.ts";
import type { JsonGraphqlParams } from "./parseJsonGraphqlParams.ts";
import { readBodyBuffer } from "./readBodyBuffer.ts";
import { runsCompiled } from "./runsCompiled.ts";
import { rejectedBy } from "./rejectedBy.ts";
import { useErrorNodes } from "./useErrorNodes.ts";
import { useRequestErrors } from "./useRequestErrors.ts";
import { useReleaseRequestCache } from "./useReleaseRequestCache.ts";
import { DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from "./graphqlLimits.ts";

export type { GraphqlLimits };

/** Request bodies above this are refused (413). */
export const MAX_REQUEST_BODY_BYTES = 100_000;

/** The /graphql handler, and `query`: a public query's answer computed in-process (createJsonLane, `query`). */
export type GraphqlHandler = ((req: IncomingMessage, res: ServerResponse) => Promise<void>) & {
  query(params: JsonGraphqlParams): Promise<ComputedResponse | null>;
};

/**
 * GraphQL over HTTP at /graphql (GraphiQL on GET from a browser): the Pothos schema, graphql-armor limits
 * (depth, cost, aliases, tokens, directives; no field suggestions), masked unexpected errors, queries compiled with
 * graphql-jit. A plain JSON POST of a query takes the direct lane (createJsonLane: yoga's envelop without its
 * Fetch-API round trip; public cacheable operations answered from the response cache); everything else is yoga's.
 */
export function createGraphqlHandler(deps: {
  services: Services;
  log: Logger;
  limits?: Partial<GraphqlLimits>;
  webhooks?: WebhookService;
  /** The wallet (owner API fields, schema/WalletOwner.ts); absent = those fields answer not_configured. */
  wallet?: WalletContext;
  /** Authenticates from request headers (bearer or cookie); see auth/authenticate.ts. */
  authenticate?: (headers: IncomingHttpHeaders, options?: { optional?: boolean }) => Promise<Principal | null>;
  /**
   * The response cache of public cacheable operations (`dashboard` only; docs/api.md, Caching): the same TTL as the
   * services' dashboard cache. Absent or `ttlMs` 0 = no response cache. `clock` (monotonic ms) is for tests.
   */
  responseCache?: { ttlMs: number; clock?: () => number };
  /** Compile queries with graphql-jit (default true; tests compare with false). */
  jit?: boolean;
  /** Headers added to the direct lane's answers after their reads (read routing's `X-Ledger-Block`, docs/api.md). */
  readHeaders?: (req: IncomingMessage) => Promise<Record<string, string>>;
}): GraphqlHandler {
  const limits = { ...DEFAULT_GRAPHQL_LIMITS, ...deps.limits };
  const log = deps.log.child({ component: "graphql" });
  const yoga = createYoga<Record<string, unknown>, GraphqlContext>({
    schema: buildSchema(),
    graphqlEndpoint: "/graphql",
    graphiql: { title: "Agent Ledger GraphQL" },
    landingPage: false,
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    // CORS is answered by buildApp (yoga's plugin echoes the Origin with credentials instead of a plain "*").
    cors: false,
    maskedErrors: { maskError: createMaskError(log), isDev: false },
    logging: {
      debug: (...args: unknown[]) => log.debug({ args }, "yoga"),
      info: (...args: unknown[]) => log.info({ args }, "yoga"),
      warn: (...args: unknown[]) => log.warn({ args }, "yoga"),
      error: (...args: unknown[]) => log.error({ args }, "yoga"),
    },
    context: (initial: Record<string, unknown>) => {
      const req = initial.req as IncomingMessage | undefined;
      let principal: Promise<Principal | null> | undefined;
      let walletOwner: Promise<{ wallet: WalletContext; user: OwnerUser }> | undefined;
      const wallet = deps.wallet;
      return {
        services: deps.services,
        webhooks: deps.webhooks,
        principal: (options?: { optional?: boolean }) => {
          if (!deps.authenticate || !req) return Promise.reject(new AuthError("unauthorized", "authentication is not available here"));
          // One authentication per request, whatever the number of fields asking.
          principal ??= deps.authenticate(req.headers, { optional: true });
          return principal.then((p) => {
            if (!p && !options?.optional)
              throw new AuthError("unauthorized", "authentication required: a paired session's bearer token or the passkey session cookie");
            return p;
          });
        },
        walletOwner: wallet && req ? () => (walletOwner ??= requireUser(wallet, req).then((user) => ({ wallet, user }))) : undefined,
        ...initContextCache(),
      };
    },
    plugins: [
      EnvelopArmorPlugin({
        maxDepth: { n: limits.maxDepth, ignoreIntrospection: true, onReject: [rejectedBy("max_depth")] },
        costLimit: { maxCost: limits.maxCost, ignoreIntrospection: true, onReject: [rejectedBy("cost_limit")] },
        maxAliases: { n: limits.maxAliases, onReject: [rejectedBy("max_aliases")] },
        maxTokens: { n: limits.maxTokens, onReject: [rejectedBy("max_tokens")] },
        maxDirectives: { n: 20, onReject: [rejectedBy("max_directives")] },
        blockFieldSuggestion: { enabled: true },
      }),
      useRequestErrors(),
      useReleaseRequestCache(),
      // Queries run compiled (graphql-jit; compiled once per parsed document); mutations stay on the normal executor,
      // and subscriptions are served by the graphql-sse endpoint with graphql-js (feed/).
      ...(deps.jit === false
        ? []
        : [
            useGraphQlJit(
              {},
              {
                enableIf: runsCompiled,
                onError: (r) => log.error({ errors: r.errors }, "graphql-jit could not compile an operation"),
              },
            ),
            useErrorNodes(),
          ]),
    ],
  });
  const ttlMs = deps.responseCache?.ttlMs ?? 0;
  const lane = createJsonLane({
    yoga,
    cache: ttlMs > 0 ? createTtlCache<ComputedResponse>(ttlMs, deps.responseCache?.clock, { maxEntries: 1_000, keep: (c) => c.cacheable }) : null,
    readHeaders: deps.readHeaders,
  });

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    if (acceptsJsonLane(req, MAX_REQUEST_BODY_BYTES)) {
      const body = await readBodyBuffer(req);
      if (await lane.answer(req, res, body)) return;
      // Consumed: yoga's Node adapter takes a pre-read body from `req.body`.
      (req as IncomingMessage & { body?: Buffer }).body = body;
    }
    await yoga(req, res);
  };
  return Object.assign(handler, { query: lane.query });
}
