import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ApiCaller } from "./createApiCaller.ts";
import { AGENT, DASHBOARD, ENTITY_EVENTS, EVENT, LATEST_EVENTS, PROVIDER, SEARCH, SERVICE } from "./ledgerDocuments.ts";
import { Dashboard, EntityDetail, EventDetail, EventList, EventsSince, Provider, SearchResult } from "./schemas.ts";
import { fail, failFrom, ok, type FailContext } from "./toolResult.ts";

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;
const AMOUNTS =
  'Amounts are uint256 decimal strings in base units ("1250000" = 1.25 of a 6-decimal stablecoin); byToken lists split summed amounts per token with its symbol and decimals.';
// Identifiers are only bounded here; their exact shape is the API's rule (it answers invalid_id / not_found).
const id = (what: string) => z.string().min(1).max(200).describe(what);
const cursor = (what: string) => z.string().min(1).max(500).optional().describe(what);
const limit = (what: string, max = 100) => z.number().int().min(1).max(max).optional().describe(what);
/** A ledger row id: a JSON number or its decimal string (the API answers ids as strings; its rule decides, invalid_id). */
export const rowId = (what: string) =>
  z
    .union([z.string().min(1).max(200), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)])
    .transform(String)
    .describe(what);

/** How far back a since-id read walks an entity's newest-first pages before it gives up (since_too_old). */
const SINCE_MAX_ROWS = 5_000;
const SINCE_PAGE = 100;

type Entity = z.infer<typeof EntityDetail>;

/** The public ledger tools (no credentials): dashboard, search, services, agents, events, providers. */
export function registerLedgerTools(server: McpServer, api: ApiCaller, ctx: FailContext): void {
  const run = async (work: () => Promise<ReturnType<typeof ok> | ReturnType<typeof fail>>) => {
    try {
      return await work();
    } catch (error) {
      return failFrom(error, ctx);
    }
  };

  server.registerTool(
    "get_dashboard",
    {
      title: "Ledger dashboard",
      description:
        "Headline figures of the public Agent Ledger (payments of watched AI agents and paid services on the Tempo chain) for a time window: " +
        "payment count and volume, active agents, detected gateway providers, the top 5 services, agents and providers by volume, and the 20 newest ledger rows. " +
        `Start here to get an overview. ${AMOUNTS}`,
      inputSchema: { window: z.enum(["24h", "7d", "30d", "all"]).default("24h").describe("time window: 24h (default), 7d, 30d or all") },
      outputSchema: Dashboard,
      annotations: READ_ONLY,
    },
    ({ window }) => run(async () => ok((await api.graphql<{ dashboard: Record<string, unknown> }>(DASHBOARD, { window })).dashboard)),
  );

  server.registerTool(
    "search",
    {
      title: "Search the ledger",
      description:
        "Search the ledger by transaction hash (0x + 64 hex: its rows), address (0x + 40 hex: rows with that counterparty, the entity owning that wallet, a labelled address), " +
        "or text (an entity id or label, an address label; case-insensitive substring, exact and prefix matches ranked first). " +
        "Three lists (events, entities, addresses), each paged on its own: to see more of one, call again with the same q and that list's nextCursor as " +
        "events_cursor, entities_cursor or addresses_cursor (only the lists whose cursor you pass are answered then). " +
        `Use it to find the id of a service or agent before get_service / get_agent. ${AMOUNTS}`,
      inputSchema: {
        q: z.string().min(2).max(200).describe("what to look for (2–200 characters)"),
        limit: limit("hits per list (default 20)"),
        events_cursor: cursor("events.nextCursor of a previous search with the same q"),
        entities_cursor: cursor("entities.nextCursor of a previous search with the same q"),
        addresses_cursor: cursor("addresses.nextCursor of a previous search with the same q"),
      },
      outputSchema: SearchResult,
      annotations: READ_ONLY,
    },
    ({ q, limit: first, events_cursor, entities_cursor, addresses_cursor }) =>
      run(async () => {
        const paging = events_cursor !== undefined || entities_cursor !== undefined || addresses_cursor !== undefined;
        const data = await api.graphql<{ search: Record<string, unknown> }>(SEARCH, {
          q,
          first: first ?? 20,
          events: !paging || events_cursor !== undefined,
          entities: !paging || entities_cursor !== undefined,
          addresses: !paging || addresses_cursor !== undefined,
          eventsAfter: events_cursor ?? null,
          entitiesAfter: entities_cursor ?? null,
          addressesAfter: addresses_cursor ?? null,
        });
        return ok(data.search);
      }),
  );

  const entityTool = (name: "get_service" | "get_agent", kind: "service" | "agent") => {
    server.registerTool(
      name,
      {
        title: kind === "service" ? "One service" : "One agent",
        description:
          (kind === "service"
            ? "One curated paid service (its id ends in -mpp, e.g. tempo-gateway-mpp) of the ledger: "
            : "One watched AI agent (any watched entity whose id does not end in -mpp) of the ledger: ") +
          "label, wallets, 24h/7d activity, all-time totals, a 30-day daily trend and its newest ledger rows" +
          (kind === "service" ? "; for the gateway (tempo-gateway-mpp) also the providers it routed payments to" : "") +
          `. Unknown ids (or an id of the other kind) are a not_found error; use search to find ids. Older rows: list_recent_events with this entity_id and the returned cursor. ${AMOUNTS}`,
        inputSchema: {
          id: id(kind === "service" ? "service id, e.g. weather-api-mpp" : "agent id, e.g. demo-agent-alpha"),
          recent_events: limit("how many newest rows to include (default 20)"),
          ...(kind === "service" ? { providers: limit("gateway only: how many providers to include (default 20)") } : {}),
        },
        outputSchema: EntityDetail,
        annotations: READ_ONLY,
      },
      (args: { id: string; recent_events?: number; providers?: number }) =>
        run(async () => {
          const data = await api.graphql<{ entity: Entity | null }>(kind === "service" ? SERVICE : AGENT, {
            id: args.id,
            events: args.recent_events ?? 20,
            providers: args.providers ?? 20,
          });
          if (!data.entity)
            return fail("not_found", `no ${kind} with id "${args.id}"`, {
              hint:
                kind === "service"
                  ? "service ids end in -mpp; for other ids use get_agent, or search"
                  : "ids ending in -mpp are services (get_service); or search",
            });
          return ok(data.entity);
        }),
    );
  };
  entityTool("get_service", "service");
  entityTool("get_agent", "agent");

  server.registerTool(
    "get_event",
    {
      title: "One ledger row",
      description:
        "One ledger row by its id (a positive integer, as a string): the payment or fee seen from a watched entity, with the transaction hash, the counterparty, " +
        "gateway routing (provider address or memo fingerprint), the explorer link, and the other rows of the same transaction; " +
        "for methodology v0.3 rows also which rule attributed it, the paying client's fingerprint and label, and for a session row its payment channel's life " +
        `(deposit, settlements, close, refund). ${AMOUNTS}`,
      inputSchema: { id: rowId('ledger row id, e.g. 4128 or "4128"') },
      outputSchema: EventDetail,
      annotations: READ_ONLY,
    },
    ({ id: eventId }) =>
      run(async () => {
        const data = await api.graphql<{ event: Record<string, unknown> | null }>(EVENT, { id: eventId });
        if (!data.event) return fail("not_found", `no ledger row with id ${eventId}`);
        return ok(data.event);
      }),
  );

  server.registerTool(
    "list_recent_events",
    {
      title: "Recent ledger rows",
      description:
        "The newest ledger rows, newest first. With entity_id: the rows of that service or agent, paginated (pass the returned nextCursor as cursor for older rows). " +
        `Without entity_id: the newest rows of the whole ledger (at most 20, no further pages). ${AMOUNTS}`,
      inputSchema: {
        entity_id: id("a service or agent id (optional)").optional(),
        limit: limit("rows per page (default 20; at most 20 without entity_id)"),
        cursor: cursor("nextCursor of a previous page (with the same entity_id)"),
      },
      outputSchema: EventList,
      annotations: READ_ONLY,
    },
    ({ entity_id, limit: first, cursor: after }) =>
      run(async () => {
        if (entity_id === undefined) {
          if (after !== undefined) return fail("invalid_cursor", "cursor needs entity_id: the whole ledger's newest rows have no further pages");
          if (first !== undefined && first > 20) return fail("invalid_limit", "limit is at most 20 without entity_id");
          const data = await api.graphql<{ dashboard: { recentEvents: unknown[] } }>(LATEST_EVENTS);
          return ok({ entityId: null, items: data.dashboard.recentEvents.slice(0, first ?? 20), nextCursor: null });
        }
        type Page = { recentEvents: { items: unknown[]; nextCursor: string | null } } | null;
        const data = await api.graphql<{ service: Page; agent: Page }>(ENTITY_EVENTS, { id: entity_id, first: first ?? 20, after: after ?? null });
        const found = data.service ?? data.agent;
        if (!found) return fail("not_found", `no service or agent with id "${entity_id}"`, { hint: "use search to find ids" });
        return ok({ entityId: entity_id, ...found.recentEvents });
      }),
  );

  server.registerTool(
    "list_events_since",
    {
      title: "New ledger rows since an id",
      description:
        "Follow a service or agent without gaps: its rows with an id above after_id, oldest first (ids grow as rows are indexed). Start with after_id 0 " +
        "(or the id of the newest row you already have, e.g. from list_recent_events), then pass the returned lastId as after_id; more = true means call again at once. " +
        `A row never appears twice and none is skipped. At most ${SINCE_MAX_ROWS} rows behind the newest (else since_too_old: start from a later id). ${AMOUNTS}`,
      inputSchema: {
        entity_id: id("a service or agent id"),
        after_id: rowId("the last row id you have (0 = from the entity's first row)"),
        limit: limit("rows per call (default 50)"),
      },
      outputSchema: EventsSince,
      annotations: READ_ONLY,
    },
    ({ entity_id, after_id, limit: first }) =>
      run(async () => {
        if (!/^(0|[1-9][0-9]{0,18})$/.test(after_id)) return fail("invalid_id", "after_id must be a non-negative integer (a ledger row id, or 0)");
        const after = BigInt(after_id);
        type Row = { id: string } & Record<string, unknown>;
        type Page = { recentEvents: { items: Row[]; nextCursor: string | null } } | null;
        // The entity's rows newest first, page by page (keyset on id: new rows only ever come before page 1), down to after_id.
        const newer: Row[] = [];
        let pageAfter: string | null = null;
        for (;;) {
          const data: { service: Page; agent: Page } = await api.graphql(ENTITY_EVENTS, { id: entity_id, first: SINCE_PAGE, after: pageAfter });
          const found = data.service ?? data.agent;
          if (!found) return fail("not_found", `no service or agent with id "${entity_id}"`, { hint: "use search to find ids" });
          const { items, nextCursor } = found.recentEvents;
          const above = items.filter((row) => BigInt(row.id) > after);
          newer.push(...above);
          if (above.length < items.length || nextCursor === null) break;
          if (newer.length >= SINCE_MAX_ROWS)
            return fail(
              "since_too_old",
              `more than ${SINCE_MAX_ROWS} rows of ${entity_id} are newer than ${after_id}: start from a later id (list_recent_events shows the newest)`,
            );
          pageAfter = nextCursor;
        }
        const items = newer.reverse().slice(0, first ?? 50);
        return ok({ entityId: entity_id, afterId: after_id, items, lastId: items.at(-1)?.id ?? after_id, more: newer.length > items.length });
      }),
  );

  server.registerTool(
    "get_provider",
    {
      title: "One gateway provider",
      description:
        "One provider that the MPP gateway (tempo-gateway-mpp) routed payments to, by its address (Pattern A escrow settlement; a Pattern B provider is also found by the address its fingerprint label names) " +
        `or its 10-byte memo fingerprint (Pattern B), case-insensitive: label, all-time payment count and volume, first and last hour seen. ${AMOUNTS}`,
      inputSchema: { key: id("provider address (0x + 40 hex) or memo fingerprint (0x + 20 hex)") },
      outputSchema: Provider,
      annotations: READ_ONLY,
    },
    ({ key }) =>
      run(async () => {
        const data = await api.graphql<{ provider: Record<string, unknown> | null }>(PROVIDER, { key });
        if (!data.provider) return fail("not_found", `no gateway provider with key ${key}`, { hint: "see get_service tempo-gateway-mpp for the providers" });
        return ok(data.provider);
      }),
  );
}
