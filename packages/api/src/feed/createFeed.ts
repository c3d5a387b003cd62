import type { IncomingMessage, ServerResponse } from "node:http";
import pg from "pg";
import type { Logger } from "pino";
import type { GraphqlLimits } from "../graphql/graphqlLimits.ts";
import type { Services } from "../services/createServices.ts";
import type { EventRecord } from "../services/types.ts";
import { createFeedHub, type FeedHub, type FeedHubStats } from "./createFeedHub.ts";
import { createGraphqlStreamHandler } from "./createGraphqlStreamHandler.ts";
import { createSseHandler } from "./createSseHandler.ts";
import type { FeedConnection } from "./feedConnection.ts";
import type { ClosableAsyncIterator } from "./mapAsyncIterator.ts";
import { openFeedCursor, type FeedCursor } from "./openFeedCursor.ts";
import { checkAgentId, FeedError, parseResumeId } from "./parseFeedParams.ts";
import type { FeedCore, FeedSource, FeedSubscribeArgs } from "./feedCore.ts";
import { DEFAULT_FEED_OPTIONS, type FeedCloseReason, type FeedFilter, type FeedKind, type FeedOptions } from "./types.ts";

export interface Feed {
  readonly options: FeedOptions;
  /** The fan-out hub (null while the feed is disabled). */
  readonly hub: FeedHub | null;
  /** `GET /api/feed` (server-sent events). */
  handleSse(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** `/graphql/stream` (graphql-sse, both connection modes). */
  handleGraphqlStream(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Open subscriptions per surface (0 while disabled), for metrics. */
  subscriberCount(kind?: FeedKind): number;
  stats(): FeedHubStats | null;
  start(): void;
  /** Ends every stream (SSE responses end cleanly) and the LISTEN connection. */
  stop(): Promise<void>;
}

export interface FeedDeps {
  pool: pg.Pool;
  services: Services;
  log: Logger;
  options?: Partial<FeedOptions>;
  graphqlLimits?: Partial<GraphqlLimits>;
}

/** The live feed of one API process: `/api/feed` (SSE) and `/graphql/stream` (graphql-sse) over one hub. */
export function createFeed(deps: FeedDeps): Feed {
  const options: FeedOptions = { ...DEFAULT_FEED_OPTIONS, ...deps.options };
  const log = deps.log.child({ component: "feed" });
  // Rows on the primary, like the LISTEN: NOTIFY is not replicated, and a replica may not have replayed a notified row yet.
  const db = deps.pool;
  const { version } = deps.services.context;
  const hub = options.enabled
    ? createFeedHub({
        db,
        version,
        log,
        listenClient:
          options.listenClient ??
          (() => new pg.Client({ ...deps.pool.options, application_name: `${deps.pool.options.application_name ?? "agent-ledger-api"}-feed` })),
        pollMs: options.pollMs,
        pageSize: options.pageSize,
        reconnectMinMs: options.reconnectMinMs,
        reconnectMaxMs: options.reconnectMaxMs,
      })
    : null;

  const core: FeedCore | null = hub && {
    options,
    hub,
    log,
    services: deps.services,
    async resolveFilter(agentId, minAmountWei) {
      const id = checkAgentId(agentId);
      if (id !== null && !(await deps.services.loadEntities([id]))[0])
        throw new FeedError("not_found", `no watched agent or service with id ${JSON.stringify(id)}`);
      return { agentId: id, minAmountWei };
    },
    async whenReady() {
      if (hub.isReady()) return;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new FeedError("feed_unavailable", "the live feed is not connected to the database yet; retry shortly")),
          options.readyTimeoutMs,
        );
      });
      try {
        await Promise.race([hub.ready(), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    openCursor(args) {
      return openFeedCursor({ ...args, hub, db, version, log, maxBufferedRows: options.maxBufferedRows, pageSize: options.pageSize });
    },
    source(connection) {
      return {
        subscribe: async (args) => {
          const afterId = parseResumeId(args.afterId, "invalid_id");
          const filter = await core!.resolveFilter(args.agentId, args.minAmountWei);
          await core!.whenReady();
          return cursorIterator(core!, filter, afterId, connection);
        },
      };
    },
  };

  const sse = createSseHandler(core, options);
  const graphqlStream = createGraphqlStreamHandler(core, { log, limits: deps.graphqlLimits });

  return {
    options,
    hub,
    handleSse: sse,
    handleGraphqlStream: graphqlStream.handle,
    subscriberCount: (kind) => hub?.subscriberCount(kind) ?? 0,
    stats: () => hub?.stats() ?? null,
    start: () => hub?.start(),
    async stop() {
      graphqlStream.stop();
      await hub?.stop();
    },
  };
}

/** A pull iterator over a cursor (GraphQL): a row is handed over only to a pending `next()` with room on the socket. */
function cursorIterator(core: FeedCore, filter: FeedFilter, afterId: bigint | null, connection: FeedConnection): ClosableAsyncIterator<EventRecord> {
  let pending: ((result: IteratorResult<EventRecord, undefined>) => void) | null = null;
  let ended = false;
  const finish = () => {
    ended = true;
    const p = pending;
    pending = null;
    p?.({ value: undefined, done: true });
  };
  const cursor = core.openCursor({
    kind: "graphql",
    filter,
    afterId,
    connection,
    offer(row) {
      if (!pending || !connection.hasRoom()) return false;
      const p = pending;
      pending = null;
      p({ value: row, done: false });
      return true;
    },
    onClose: finish,
  });
  return {
    next() {
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => {
        pending = resolve;
        cursor.kick();
      });
    },
    async return() {
      cursor.close("client_closed");
      finish();
      return { value: undefined, done: true };
    },
    async throw(error?: unknown) {
      cursor.close("client_closed");
      finish();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
