import { EventSource } from "eventsource";
import { createClient, type Client } from "graphql-sse";

// Real clients of the live feed: the `eventsource` package (the WHATWG EventSource, auto-reconnecting with
// Last-Event-ID) and graphql-sse's own client, both over real HTTP.

/* eslint-disable @typescript-eslint/no-explicit-any */

export interface SseCollector {
  es: EventSource;
  /** `event: event` rows (parsed data), in arrival order. */
  rows: any[];
  /** The `id` of each row event (the SSE lastEventId). */
  rowEventIds: string[];
  /** `event: ready` ids, in arrival order (one per (re)connection). */
  ready: string[];
  opens: number;
  ids(): number[];
  close(): void;
}

/** An EventSource on `url`; `lastEventId` is sent as the Last-Event-ID header on the first connection. */
export function openEventSource(url: string, lastEventId?: string): SseCollector {
  const es = new EventSource(url, {
    fetch: (input, init) => {
      const headers = { ...(init.headers as Record<string, string>) };
      // the library sends its own Last-Event-ID on reconnects; ours is only for the first connection
      if (lastEventId !== undefined && !("Last-Event-ID" in headers)) headers["Last-Event-ID"] = lastEventId;
      return fetch(input, { ...init, headers });
    },
  });
  const c: SseCollector = {
    es,
    rows: [],
    rowEventIds: [],
    ready: [],
    opens: 0,
    ids: () => c.rows.map((r) => r.id as number),
    close: () => es.close(),
  };
  es.addEventListener("open", () => c.opens++);
  es.addEventListener("event", (e) => {
    c.rows.push(JSON.parse(e.data));
    c.rowEventIds.push(e.lastEventId);
  });
  es.addEventListener("ready", (e) => c.ready.push(e.lastEventId));
  return c;
}

export interface GraphqlCollector {
  client: Client<boolean>;
  results: any[];
  errors: unknown[];
  completed: boolean;
  /** `data.ledgerEvents` of each result. */
  events(): any[];
  dispose(): void;
}

/** One graphql-sse subscription (a client of its own, in the given mode). */
export function subscribeGraphql(base: string, singleConnection: boolean, query: string, variables: Record<string, unknown> = {}): GraphqlCollector {
  const client = createClient({ url: `${base}/graphql/stream`, singleConnection, retryAttempts: 0 });
  const c: GraphqlCollector = {
    client,
    results: [],
    errors: [],
    completed: false,
    events: () => c.results.filter((r) => r.data?.ledgerEvents).map((r) => r.data.ledgerEvents),
    dispose: () => {
      unsubscribe();
      client.dispose();
    },
  };
  const unsubscribe = client.subscribe(
    { query, variables },
    {
      next: (result) => void c.results.push(result),
      error: (error) => void c.errors.push(error),
      complete: () => void (c.completed = true),
    },
  );
  return c;
}
